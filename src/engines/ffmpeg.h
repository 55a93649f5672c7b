// Ffmpeg: ffmpeg, where it is installed, run on bytes in memory for zest's
// converters (audio_converter.h: uploads into WAV for speech engines;
// image_converter.h: an image engine's PNG into JPEG or WebP). What ffmpeg
// reads may come from a client or an engine, so it runs only inside zest's
// engine sandbox (sandbox.h: the host's system files read-only, of /etc only
// what the dynamic linker needs, no network,
// nothing of zest's home) with one private directory of its own for the
// input and output files, removed when the run ends, however it ends; and
// within a time limit and an output size limit.
//
// Thread-safe. Runs go on the runner's own threads (Run), never on the
// caller's (long audio takes seconds); RunBlocking is for callers that are
// on a thread of their own already.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/engine_locator.h"

namespace zest::engines {

struct FfmpegSetup {
  Result<EngineLocation> ffmpeg = NotFound("ffmpeg is not installed");
  // Reads a file's duration from its header (FfmpegJob::max_input_seconds);
  // not found: the output's own limits still hold.
  Result<EngineLocation> ffprobe = NotFound("ffprobe is not installed");
  // Where each run makes its private directory (zest's $TMPDIR, as the
  // settings' side reads it: app/engine_search.cc).
  std::filesystem::path work_root = "/tmp";
  std::chrono::seconds timeout{120};
};

// One run: `ffmpeg -i IN <output_args> -fs LIMIT OUT`.
struct FfmpegJob {
  // Before -i: how to read the input (e.g. {"-f", "png_pipe"} to accept PNG
  // only); empty = let ffmpeg probe it.
  std::vector<std::string> input_args;
  // After -i: streams, codec, quality and the output format (-f).
  std::vector<std::string> output_args;
  // -fs stops the output at this size; an output this large is refused.
  uint64_t max_output_bytes = 0;
  // > 0: an input whose header says it lasts longer is refused (kTooLarge)
  // before anything is decoded (ffprobe, in the same sandbox).
  double max_input_seconds = 0;
  std::string what = "the input";          // for messages: "converting the audio took over 120 s"
  std::string dir_prefix = "zest-ffmpeg";  // the private directory's name: PREFIX-XXXXXX
};

class Ffmpeg {
 public:
  explicit Ffmpeg(FfmpegSetup setup);
  ~Ffmpeg() { threads_.join(); }
  Ffmpeg(const Ffmpeg&) = delete;
  Ffmpeg& operator=(const Ffmpeg&) = delete;

  // Ok when ffmpeg is installed and can be sandboxed; else kNotFound
  // ("ffmpeg is not installed (apt install ffmpeg)") or kUnavailable (no
  // bubblewrap), saying how to fix it.
  Status Available() const;
  // For `zest system` and the logs: "ffmpeg (/usr/bin/ffmpeg)", or why not.
  std::string Describe() const;

  // The output's bytes, on the runner's threads. kInvalidArgument when it
  // fails (it cannot read the input, most often; ffmpeg's own words go to
  // the log); kTooLarge when the input lasts over job.max_input_seconds or
  // the output reaches job.max_output_bytes; kTimeout; kIoError; or
  // Available()'s error.
  boost::asio::awaitable<Result<std::string>> Run(std::string input, FfmpegJob job) const;
  // The same, blocking the calling thread.
  Result<std::string> RunBlocking(std::string_view input, const FfmpegJob& job) const;

 private:
  boost::asio::awaitable<Result<std::string>> RunOnPool(std::string input, FfmpegJob job) const;
  // `in`'s duration as its header states it; nullopt when ffprobe is not
  // installed or the header does not say.
  std::optional<double> ProbeSeconds(const std::filesystem::path& dir,
                                     const std::filesystem::path& in) const;

  const FfmpegSetup setup_;
  mutable boost::asio::thread_pool threads_{2};
};

}  // namespace zest::engines
