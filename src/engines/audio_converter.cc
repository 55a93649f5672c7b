#include "engines/audio_converter.h"

#include <stdlib.h>  // mkdtemp

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <fstream>
#include <iterator>

#include "engines/process.h"

namespace zest::engines {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

// A directory only this conversion uses (mkdtemp: 0700), removed with it.
class WorkDir {
 public:
  explicit WorkDir(const fs::path& root) {
    std::string pattern =
        ((root.empty() ? fs::temp_directory_path() : root) / "zest-audio-XXXXXX").string();
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

}  // namespace

Status AudioConverter::Available() const {
  if (!setup_.ffmpeg.ok()) {
    return NotFound(
        "ffmpeg is not installed (apt install ffmpeg): zest converts other audio "
        "formats with it");
  }
  if (!setup_.ffmpeg->sandboxed()) {
    return Unavailable("zest runs ffmpeg on uploads only in its sandbox: apt install bubblewrap");
  }
  return Status::Ok();
}

std::string AudioConverter::Describe() const {
  Status available = Available();
  return available.ok() ? "ffmpeg (" + setup_.ffmpeg->binary.string() + ")" : available.message();
}

asio::awaitable<Result<std::string>> AudioConverter::Convert(std::string audio) const {
  co_return co_await asio::co_spawn(threads_, ConvertOnPool(std::move(audio)), asio::use_awaitable);
}

// A member coroutine, not a capturing lambda: GCC 12 miscompiles lambda
// coroutines whose captures outlive a suspension.
asio::awaitable<Result<std::string>> AudioConverter::ConvertOnPool(std::string audio) const {
  co_return ConvertBlocking(audio);
}

Result<std::string> AudioConverter::ConvertBlocking(std::string_view audio) const {
  ZEST_RETURN_IF_ERROR(Available());
  WorkDir dir(setup_.work_root);
  if (dir.path().empty()) return IoError("cannot make a directory for the audio conversion");
  const fs::path in = dir.path() / "in";
  const fs::path out = dir.path() / "out.wav";
  {
    std::ofstream file(in, std::ios::binary);
    file.write(audio.data(), static_cast<std::streamsize>(audio.size()));
    if (!file) return IoError("cannot write the audio for conversion");
  }
  SandboxMounts mounts;
  mounts.writable = {dir.path()};
  SpawnOptions spawn;
  // The first audio stream, resampled to whisper's 16 kHz mono; -fs stops
  // it at the size limit (a larger output is refused below).
  spawn.argv = setup_.ffmpeg->Command({"ffmpeg",
                                       "-nostdin",
                                       "-hide_banner",
                                       "-loglevel",
                                       "error",
                                       "-i",
                                       in.string(),
                                       "-map",
                                       "0:a:0",
                                       "-ac",
                                       "1",
                                       "-ar",
                                       "16000",
                                       "-c:a",
                                       "pcm_s16le",
                                       "-fs",
                                       std::to_string(setup_.max_output_bytes),
                                       "-f",
                                       "wav",
                                       "-y",
                                       out.string()},
                                      mounts);
  spawn.env = setup_.ffmpeg->Environment();
  spawn.clear_env = true;
  spawn.ring_lines = 20;
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<Process> process, Process::Spawn(spawn));
  const bool timed_out = !process->WaitForExit(setup_.timeout);
  process->Terminate(std::chrono::milliseconds(500));
  if (timed_out) {
    return Status(ErrorCode::kTimeout, "converting the audio took over " +
                                           std::to_string(setup_.timeout.count()) + " s");
  }
  if (*process->ExitStatus() != 0) {
    return InvalidArgument("the file is not audio zest can read: ffmpeg could not decode it (" +
                           LastLine(*process) + ")");
  }
  std::error_code ec;
  const uint64_t size = fs::file_size(out, ec);
  if (ec || size <= 44) return InvalidArgument("the file holds no audio ffmpeg could decode");
  if (size >= setup_.max_output_bytes) {
    return Status(ErrorCode::kTooLarge, "the audio is too long: over " +
                                            std::to_string(setup_.max_output_bytes >> 20) +
                                            " MB once decoded to 16 kHz WAV");
  }
  std::ifstream file(out, std::ios::binary);
  std::string wav((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (wav.size() != size) return IoError("cannot read the converted audio");
  return wav;
}

}  // namespace zest::engines
