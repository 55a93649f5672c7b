#include "engines/audio_converter.h"

#include <cstdint>

#include "engines/wav_header.h"

namespace zest::engines {

Status AudioConverter::Available() const {
  Status available = ffmpeg_->Available();
  if (available.code() == ErrorCode::kNotFound) {
    return NotFound(available.message() + ": zest converts other audio formats with it");
  }
  return available;
}

namespace {

constexpr uint64_t kWavBytesPerSecond = 16000 * 2;  // 16 kHz, 16-bit, mono
// More than any WAV header ffmpeg writes (44 bytes and an INFO chunk), less
// than a second of audio.
constexpr uint64_t kWavHeaderRoom = 4096;

// The demuxers ffmpeg may use on a client's upload: the audio formats
// clients send. Named so that ffmpeg reads no playlist or concat list (which
// name other files) and no format nobody uploads; the sandbox holds no
// other files, but what ffmpeg need not parse is not parsed.
constexpr const char* kAudioDemuxers = "wav,mp3,flac,ogg,matroska,mov,aac,aiff,caf,w64";

// The "fmt " chunk of a plain WAV: PCM (tag 1), 1 channel, 16 kHz, 16-bit,
// and the rates that follow from them.
bool PlainFormat(std::string_view b, size_t body, uint64_t size) {
  return size >= 16 && Le16(b, body) == 1 && Le16(b, body + 2) == 1 && Le32(b, body + 4) == 16000 &&
         Le32(b, body + 8) == kWavBytesPerSecond && Le16(b, body + 12) == 2 &&
         Le16(b, body + 14) == 16;
}

}  // namespace

std::optional<double> PlainWavSeconds(std::string_view b) {
  if (b.size() < 12 || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WAVE") return std::nullopt;
  bool plain = false;
  for (size_t at = 12; at + 8 <= b.size();) {
    const std::string_view id = b.substr(at, 4);
    const uint64_t size = Le32(b, at + 4);
    const size_t body = at + 8;
    if (id == "data") {
      if (!plain) return std::nullopt;
      const size_t samples = (b.size() - body) / 2;  // 16-bit mono: whole samples
      return static_cast<double>(samples) / 16000.0;
    }
    if (body + size > b.size()) return std::nullopt;
    if (id == "fmt ") {
      // A second format chunk: readers differ on which one holds.
      if (plain || !PlainFormat(b, body, size)) return std::nullopt;
      plain = true;
    }
    at = body + size + (size & 1);  // chunks are padded to an even size
  }
  return std::nullopt;
}

// The first audio stream, resampled to whisper's 16 kHz mono; decoding
// stops a second past the limit, so a header that understates the length
// costs no more than that.
FfmpegJob AudioConverter::Job() const {
  FfmpegJob job;
  job.input_args = {"-protocol_whitelist", "file", "-format_whitelist", kAudioDemuxers};
  job.output_args = {"-map",  "0:a:0", "-ac",       "1",  "-ar",
                     "16000", "-c:a",  "pcm_s16le", "-t", std::to_string(max_seconds_ + 1),
                     "-f",    "wav"};
  job.max_output_bytes = (static_cast<uint64_t>(max_seconds_) + 2) * kWavBytesPerSecond;
  job.max_input_seconds = max_seconds_;
  job.what = "the audio";
  job.dir_prefix = "zest-audio";
  return job;
}

// ffmpeg's errors in words about audio.
Result<std::string> AudioConverter::Checked(Result<std::string> wav) const {
  if (wav.status().code() == ErrorCode::kInvalidArgument) {
    return InvalidArgument("the file is not audio zest can read: " + wav.status().message());
  }
  const std::string too_long = TooLong();
  if (wav.status().code() == ErrorCode::kTooLarge) {
    return Status(ErrorCode::kTooLarge, too_long + "; " + wav.status().message());
  }
  if (!wav.ok()) return wav.status().code() == ErrorCode::kNotFound ? Available() : wav.status();
  // Decoded past the limit: the header said less, or nothing.
  if (wav->size() > static_cast<uint64_t>(max_seconds_) * kWavBytesPerSecond + kWavHeaderRoom) {
    return Status(ErrorCode::kTooLarge, too_long + "; it decodes to more");
  }
  // A WAV header (44 bytes) and nothing else.
  if (wav->size() <= 44) return InvalidArgument("the file holds no audio ffmpeg could decode");
  return wav;
}

std::string AudioConverter::TooLong() const {
  return "the audio is too long: at most " + std::to_string(max_seconds_) +
         " s (limits.max_audio_s)";
}

boost::asio::awaitable<Result<std::string>> AudioConverter::Bounded(std::string audio) const {
  if (std::optional<double> seconds = PlainWavSeconds(audio)) {
    if (*seconds > max_seconds_) {
      co_return Status(
          ErrorCode::kTooLarge,
          TooLong() + "; it lasts " + std::to_string(static_cast<int64_t>(*seconds)) + " s");
    }
    co_return audio;
  }
  co_return co_await Convert(std::move(audio));
}

boost::asio::awaitable<Result<std::string>> AudioConverter::Convert(std::string audio) const {
  FfmpegJob job = Job();  // named: no temporaries in co_await (GCC 12)
  Result<std::string> wav = co_await ffmpeg_->Run(std::move(audio), std::move(job));
  co_return Checked(std::move(wav));
}

boost::asio::awaitable<Result<std::string>> AudioConverter::Encode(std::string wav,
                                                                   SpeechFormat format,
                                                                   double speed) const {
  FfmpegJob job;
  job.input_args = {"-f", "wav"};
  job.output_args = SpeechOutputArgs(format, speed);
  // Slowed down to a quarter, 16-bit PCM is four times the engine's WAV.
  job.max_output_bytes = wav.size() * 5 + (1 << 20);
  job.what = "the speech";
  job.dir_prefix = "zest-speech";
  Result<std::string> out = co_await ffmpeg_->Run(std::move(wav), std::move(job));
  if (out.status().code() == ErrorCode::kNotFound) co_return Available();
  co_return out;
}

Result<std::string> AudioConverter::ConvertBlocking(std::string_view audio) const {
  return Checked(ffmpeg_->RunBlocking(audio, Job()));
}

}  // namespace zest::engines
