// ReadWav: what a WAV file's header says (rate, channels, sample size) and
// how long its audio lasts, for a speech-out engine's answer. Bounds-checked:
// the bytes come from an engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/speech.h"

namespace zest::engines {

// A RIFF header's little-endian fields at `at` (the caller checks that
// the bytes are there): for ReadWav and the converter's PlainWavSeconds.
inline uint32_t Le32(std::string_view b, std::size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}
inline uint16_t Le16(std::string_view b, std::size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}

// `wav` with its header read; kInvalidArgument when it is not a RIFF/WAVE
// file with a "fmt " chunk before its "data" chunk. A data chunk whose size
// runs past the file (a writer that never came back to fill it in) is taken
// to end with the file.
Result<SpeechAudio> ReadWav(std::string wav);

// The samples of a WAV read by ReadWav, without the header: OpenAI's `pcm`
// when the WAV is already 16-bit mono at the rate it documents.
std::string_view WavSamples(const SpeechAudio& audio);

}  // namespace zest::engines
