#include "engines/wav_header.h"

#include <cstdint>

namespace zest::engines {
namespace {

constexpr size_t kRiffHeader = 12;  // "RIFF" size "WAVE"
constexpr size_t kChunkHeader = 8;  // id, size
constexpr size_t kFmtBytes = 16;    // the PCM part of "fmt "

struct DataChunk {
  size_t offset = 0;
  size_t size = 0;
};

// Where the samples are; sets the format fields of `audio`.
Result<DataChunk> Chunks(std::string_view b, SpeechAudio& audio) {
  bool have_format = false;
  for (size_t at = kRiffHeader; at + kChunkHeader <= b.size();) {
    const std::string_view id = b.substr(at, 4);
    const uint64_t size = Le32(b, at + 4);
    const size_t body = at + kChunkHeader;
    if (id == "data") {
      if (!have_format) return InvalidArgument("the WAV's data comes before its format");
      const size_t left = b.size() - body;
      return DataChunk{body, size > left ? left : static_cast<size_t>(size)};
    }
    if (body + size > b.size()) break;
    if (id == "fmt ") {
      if (size < kFmtBytes) return InvalidArgument("the WAV's format chunk is too short");
      audio.channels = Le16(b, body + 2);
      audio.sample_rate = Le32(b, body + 4);
      audio.bits_per_sample = Le16(b, body + 14);
      have_format = true;
    }
    at = body + size + (size & 1);  // chunks are padded to an even size
  }
  return InvalidArgument("the WAV has no data chunk");
}

}  // namespace

Result<SpeechAudio> ReadWav(std::string wav) {
  const std::string_view b = wav;
  if (b.size() < kRiffHeader || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WAVE") {
    return InvalidArgument("not a WAV file");
  }
  SpeechAudio audio;
  ZEST_ASSIGN_OR_RETURN(DataChunk data, Chunks(b, audio));
  const uint64_t frame = static_cast<uint64_t>(audio.channels) * (audio.bits_per_sample / 8);
  if (frame == 0 || audio.sample_rate == 0) return InvalidArgument("the WAV's format is empty");
  const uint64_t frames = data.size / frame;  // whole frames only
  audio.seconds = static_cast<double>(frames) / audio.sample_rate;
  audio.data_offset = data.offset;
  audio.data_size = data.size;
  audio.wav = std::move(wav);
  return audio;
}

std::string_view WavSamples(const SpeechAudio& audio) {
  return std::string_view(audio.wav).substr(audio.data_offset, audio.data_size);
}

}  // namespace zest::engines
