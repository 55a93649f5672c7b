// A WAV file built in memory for the engines' unit tests.
#pragma once

#include <cstdint>
#include <string>

namespace zest::engines {

inline void Put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void Put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v & 0xFF));
  s.push_back(static_cast<char>(v >> 8));
}

// A PCM WAV of `samples` 16-bit samples, with a LIST chunk before its data
// as some writers put, and a data size of `declared` (default: the truth).
inline std::string Wav(uint32_t rate, uint16_t channels, uint32_t samples, int64_t declared = -1) {
  std::string s = "RIFF";
  Put32(s, 0);
  s += "WAVEfmt ";
  Put32(s, 16);
  Put16(s, 1);
  Put16(s, channels);
  Put32(s, rate);
  Put32(s, rate * channels * 2);
  Put16(s, static_cast<uint16_t>(channels * 2));
  Put16(s, 16);
  s += "LIST";
  Put32(s, 3);
  s += "abc";
  s.push_back('\0');  // padded to an even size
  s += "data";
  const uint32_t bytes = samples * channels * 2;
  Put32(s, declared >= 0 ? static_cast<uint32_t>(declared) : bytes);
  s.append(bytes, '\x01');
  return s;
}

}  // namespace zest::engines
