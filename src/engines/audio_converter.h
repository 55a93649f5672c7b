// AudioConverter: ffmpeg, where it is installed, turns audio that speech
// engines do not decode themselves (WebM, Opus, M4A/AAC, ...) into 16 kHz
// mono 16-bit WAV, which every speech engine reads. ffmpeg parses untrusted
// uploads, so it runs only inside zest's engine sandbox (sandbox.h: the
// host's system files read-only, no network, nothing of zest's home) with
// one private directory of its own for the input and output files, which
// is removed when the conversion ends, however it ends.
//
// Thread-safe. Conversions run on the converter's own threads, never on the
// caller's (they take seconds for long audio).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/engine_locator.h"

namespace zest::engines {

struct AudioConverterSetup {
  Result<EngineLocation> ffmpeg = NotFound("ffmpeg is not installed");
  // Where each conversion makes its private directory; empty = $TMPDIR.
  std::filesystem::path work_root;
  std::chrono::seconds timeout{120};
  // The WAV may be no larger (16 kHz mono: 32 kB a second, 2.3 hours).
  uint64_t max_output_bytes = 256ull << 20;
};

class AudioConverter {
 public:
  explicit AudioConverter(AudioConverterSetup setup) : setup_(std::move(setup)) {}
  ~AudioConverter() { threads_.join(); }
  AudioConverter(const AudioConverter&) = delete;
  AudioConverter& operator=(const AudioConverter&) = delete;

  // Ok when ffmpeg is installed and can be sandboxed; else why not, with
  // how to fix it.
  Status Available() const;
  // For `zest system`: "ffmpeg (/usr/bin/ffmpeg)", or why it is not used.
  std::string Describe() const;

  // `audio` as WAV, on the converter's threads. kInvalidArgument when ffmpeg
  // cannot read it; kTooLarge when the WAV would be over the limit;
  // kTimeout; kUnavailable when ffmpeg is not installed.
  boost::asio::awaitable<Result<std::string>> Convert(std::string audio) const;
  // The same, blocking the calling thread.
  Result<std::string> ConvertBlocking(std::string_view audio) const;

 private:
  boost::asio::awaitable<Result<std::string>> ConvertOnPool(std::string audio) const;

  const AudioConverterSetup setup_;
  mutable boost::asio::thread_pool threads_{2};
};

}  // namespace zest::engines
