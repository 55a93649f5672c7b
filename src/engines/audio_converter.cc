#include "engines/audio_converter.h"

namespace zest::engines {

Status AudioConverter::Available() const {
  Status available = ffmpeg_->Available();
  if (available.code() == ErrorCode::kNotFound) {
    return NotFound(available.message() + ": zest converts other audio formats with it");
  }
  return available;
}

// The first audio stream, resampled to whisper's 16 kHz mono.
FfmpegJob AudioConverter::Job() const {
  FfmpegJob job;
  job.output_args = {"-map", "0:a:0", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav"};
  job.max_output_bytes = max_output_bytes_;
  job.what = "the audio";
  job.dir_prefix = "zest-audio";
  return job;
}

// ffmpeg's errors in words about audio.
Result<std::string> AudioConverter::Checked(Result<std::string> wav) const {
  if (wav.status().code() == ErrorCode::kInvalidArgument) {
    return InvalidArgument("the file is not audio zest can read: " + wav.status().message());
  }
  if (wav.status().code() == ErrorCode::kTooLarge) {
    return Status(ErrorCode::kTooLarge, "the audio is too long: over " +
                                            std::to_string(max_output_bytes_ >> 20) +
                                            " MB once decoded to 16 kHz WAV");
  }
  if (!wav.ok()) return wav.status().code() == ErrorCode::kNotFound ? Available() : wav.status();
  // A WAV header (44 bytes) and nothing else.
  if (wav->size() <= 44) return InvalidArgument("the file holds no audio ffmpeg could decode");
  return wav;
}

boost::asio::awaitable<Result<std::string>> AudioConverter::Convert(std::string audio) const {
  FfmpegJob job = Job();  // named: no temporaries in co_await (GCC 12)
  Result<std::string> wav = co_await ffmpeg_->Run(std::move(audio), std::move(job));
  co_return Checked(std::move(wav));
}

Result<std::string> AudioConverter::ConvertBlocking(std::string_view audio) const {
  return Checked(ffmpeg_->RunBlocking(audio, Job()));
}

}  // namespace zest::engines
