#include "engines/speech_format.h"

#include <array>
#include <cstdio>

#include "engines/wav_header.h"

namespace zest::engines {
namespace {

struct FormatInfo {
  SpeechFormat format;
  const char* name;
  const char* content_type;
};

constexpr std::array<FormatInfo, 6> kFormats = {{
    {SpeechFormat::kMp3, "mp3", "audio/mpeg"},
    {SpeechFormat::kOpus, "opus", "audio/ogg"},
    {SpeechFormat::kAac, "aac", "audio/aac"},
    {SpeechFormat::kFlac, "flac", "audio/flac"},
    {SpeechFormat::kWav, "wav", "audio/wav"},
    {SpeechFormat::kPcm, "pcm", "audio/pcm"},
}};

const FormatInfo& Info(SpeechFormat format) {
  for (const FormatInfo& f : kFormats) {
    if (f.format == format) return f;
  }
  return kFormats[0];
}

// atempo takes 0.5 to 2 in one step on every ffmpeg Debian has shipped.
std::string TempoFilter(double speed) {
  std::string filter;
  auto step = [&filter](double s) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "atempo=%.4g", s);
    filter += (filter.empty() ? "" : ",") + std::string(buf);
  };
  while (speed < 0.5) {
    step(0.5);
    speed /= 0.5;
  }
  while (speed > 2.0) {
    step(2.0);
    speed /= 2.0;
  }
  step(speed);
  return filter;
}

bool IsPcmShape(const SpeechAudio& audio) {
  return audio.bits_per_sample == 16 && audio.channels == 1 &&
         audio.sample_rate == static_cast<uint32_t>(kPcmSampleRate);
}

}  // namespace

Result<SpeechFormat> ParseSpeechFormat(std::string_view name) {
  if (name.empty()) return SpeechFormat::kMp3;
  for (const FormatInfo& f : kFormats) {
    if (name == f.name) return f.format;
  }
  return InvalidArgument("response_format must be one of mp3, opus, aac, flac, wav, pcm");
}

const char* SpeechFormatName(SpeechFormat format) { return Info(format).name; }

const char* SpeechContentType(SpeechFormat format) { return Info(format).content_type; }

bool SpeechNeedsFfmpeg(const SpeechAudio& audio, SpeechFormat format, double speed) {
  if (speed != 1.0) return true;
  if (format == SpeechFormat::kWav) return false;
  return format != SpeechFormat::kPcm || !IsPcmShape(audio);
}

std::vector<std::string> SpeechOutputArgs(SpeechFormat format, double speed) {
  std::vector<std::string> args = {"-map", "0:a:0", "-ac", "1"};
  if (speed != 1.0) args.insert(args.end(), {"-filter:a", TempoFilter(speed)});
  switch (format) {
    case SpeechFormat::kMp3:
      args.insert(args.end(), {"-c:a", "libmp3lame", "-b:a", "64k", "-f", "mp3"});
      break;
    case SpeechFormat::kOpus:  // Ogg Opus, as OpenAI sends it; libopus takes 24 kHz
      args.insert(args.end(), {"-ar", "24000", "-c:a", "libopus", "-b:a", "32k", "-f", "ogg"});
      break;
    case SpeechFormat::kAac:
      args.insert(args.end(), {"-c:a", "aac", "-b:a", "64k", "-f", "adts"});
      break;
    case SpeechFormat::kFlac:
      args.insert(args.end(), {"-c:a", "flac", "-f", "flac"});
      break;
    case SpeechFormat::kWav:
      args.insert(args.end(), {"-c:a", "pcm_s16le", "-f", "wav"});
      break;
    case SpeechFormat::kPcm:
      args.insert(args.end(),
                  {"-ar", std::to_string(kPcmSampleRate), "-c:a", "pcm_s16le", "-f", "s16le"});
      break;
  }
  return args;
}

std::string SpeechWithoutFfmpeg(const SpeechAudio& audio, SpeechFormat format) {
  if (format == SpeechFormat::kPcm) return std::string(WavSamples(audio));
  return audio.wav;
}

}  // namespace zest::engines
