#include "engines/ffmpeg.h"

#include <spdlog/spdlog.h>
#include <stdlib.h>  // mkdtemp

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "engines/process.h"

namespace zest::engines {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

// A directory only this run uses (mkdtemp: 0700), removed with it.
class WorkDir {
 public:
  WorkDir(const fs::path& root, const std::string& prefix) {
    std::string pattern = (root / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// ffmpeg's own words on a failure: its last line.
std::string LastLine(const Process& process) {
  std::vector<std::string> lines = process.output().Tail(1);
  return lines.empty() ? "no output" : lines.back();
}

std::vector<std::string> Argv(const FfmpegJob& job, const fs::path& in, const fs::path& out) {
  std::vector<std::string> argv = {"ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error"};
  argv.insert(argv.end(), job.input_args.begin(), job.input_args.end());
  argv.insert(argv.end(), {"-i", in.string()});
  argv.insert(argv.end(), job.output_args.begin(), job.output_args.end());
  argv.insert(argv.end(), {"-fs", std::to_string(job.max_output_bytes), "-y", out.string()});
  return argv;
}

// The second wall behind -max_pixels, -t and -fs (issue 52): whatever a
// client's file makes a decoder allocate, ffmpeg (and bubblewrap, which
// execs it) cannot take more than this. 4 GiB of address space: a decoded
// 8192 x 8192 frame in several pixel formats, the codec's threads' stacks
// and glibc's per-thread arenas fit with room to spare.
constexpr uint64_t kMaxAddressSpace = uint64_t{4} << 30;

// The sandbox for one run: the host's system files, and of the rest only
// the run's own directory.
SpawnOptions Sandboxed(const EngineLocation& tool, const std::vector<std::string>& argv,
                       const fs::path& dir) {
  SandboxMounts mounts;
  mounts.writable = {dir};
  SpawnOptions spawn;
  spawn.argv = tool.Command(argv, mounts);
  spawn.env = tool.Environment();
  spawn.clear_env = true;
  spawn.ring_lines = 20;
  spawn.max_address_space = kMaxAddressSpace;
  return spawn;
}

}  // namespace

namespace {

// ffmpeg and ffprobe read no configuration: of the host's /etc they see
// only what dynamic linking needs.
FfmpegSetup Narrowed(FfmpegSetup setup) {
  for (Result<EngineLocation>* tool : {&setup.ffmpeg, &setup.ffprobe}) {
    if (tool->ok()) (*tool)->whole_etc = false;
  }
  return setup;
}

}  // namespace

Ffmpeg::Ffmpeg(FfmpegSetup setup) : setup_(Narrowed(std::move(setup))) {}

Status Ffmpeg::Available() const {
  if (!setup_.ffmpeg.ok()) return NotFound("ffmpeg is not installed (apt install ffmpeg)");
  if (!setup_.ffmpeg->sandboxed()) {
    return Unavailable("zest runs ffmpeg only in its sandbox: apt install bubblewrap");
  }
  return Status::Ok();
}

std::string Ffmpeg::Describe() const {
  Status available = Available();
  return available.ok() ? "ffmpeg (" + setup_.ffmpeg->binary.string() + ")" : available.message();
}

asio::awaitable<Result<std::string>> Ffmpeg::Run(std::string input, FfmpegJob job) const {
  co_return co_await asio::co_spawn(threads_, RunOnPool(std::move(input), std::move(job)),
                                    asio::use_awaitable);
}

// A member coroutine, not a capturing lambda: GCC 12 miscompiles lambda
// coroutines whose captures outlive a suspension.
asio::awaitable<Result<std::string>> Ffmpeg::RunOnPool(std::string input, FfmpegJob job) const {
  co_return RunBlocking(input, job);
}

std::optional<double> Ffmpeg::ProbeSeconds(const fs::path& dir, const fs::path& in) const {
  if (!setup_.ffprobe.ok()) return std::nullopt;
  const std::vector<std::string> argv = {"ffprobe",         "-v",  "error",   "-show_entries",
                                         "format=duration", "-of", "csv=p=0", in.string()};
  Result<std::unique_ptr<Process>> process = Process::Spawn(Sandboxed(*setup_.ffprobe, argv, dir));
  if (!process.ok()) return std::nullopt;
  const bool timed_out = !(*process)->WaitForExit(setup_.timeout);
  (*process)->Terminate(std::chrono::milliseconds(500));
  if (timed_out || (*process)->ExitStatus().value_or(1) != 0) return std::nullopt;
  // One line, "1800.000000", or "N/A" when the header does not say.
  std::vector<std::string> lines = (*process)->output().Tail(1);
  if (lines.empty()) return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(lines.back().c_str(), &end);
  if (end == lines.back().c_str() || !(seconds >= 0)) return std::nullopt;
  return seconds;
}

Result<std::string> Ffmpeg::RunBlocking(std::string_view input, const FfmpegJob& job) const {
  ZEST_RETURN_IF_ERROR(Available());
  WorkDir dir(setup_.work_root, job.dir_prefix);
  if (dir.path().empty()) return IoError("cannot make a directory for converting " + job.what);
  const fs::path in = dir.path() / "in";
  const fs::path out = dir.path() / "out";
  {
    std::ofstream file(in, std::ios::binary);
    file.write(input.data(), static_cast<std::streamsize>(input.size()));
    if (!file) return IoError("cannot write " + job.what + " for conversion");
  }
  if (job.max_input_seconds > 0) {
    std::optional<double> seconds = ProbeSeconds(dir.path(), in);
    if (seconds && *seconds > job.max_input_seconds) {
      return Status(
          ErrorCode::kTooLarge,
          "it lasts " + std::to_string(static_cast<int64_t>(*seconds)) + " s by its header");
    }
  }
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<Process> process,
                        Process::Spawn(Sandboxed(*setup_.ffmpeg, Argv(job, in, out), dir.path())));
  const bool timed_out = !process->WaitForExit(setup_.timeout);
  process->Terminate(std::chrono::milliseconds(500));
  if (timed_out) {
    return Status(ErrorCode::kTimeout, "converting " + job.what + " took over " +
                                           std::to_string(setup_.timeout.count()) + " s");
  }
  if (*process->ExitStatus() != 0) {
    // ffmpeg's own words name the host's paths: for the log, not the client.
    spdlog::warn("ffmpeg: converting {} failed: {}", job.what, LastLine(*process));
    return InvalidArgument("ffmpeg could not decode it");
  }
  std::error_code ec;
  const uint64_t size = fs::file_size(out, ec);
  if (ec) return InvalidArgument("ffmpeg wrote no output");
  if (size >= job.max_output_bytes) {
    return Status(ErrorCode::kTooLarge, "converting " + job.what + " made over " +
                                            std::to_string(job.max_output_bytes) + " bytes");
  }
  std::ifstream file(out, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() != size) return IoError("cannot read what ffmpeg made of " + job.what);
  return bytes;
}

}  // namespace zest::engines
