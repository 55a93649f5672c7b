#include "tools/tensor_encoding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace zest::tools {
namespace {

static_assert(std::endian::native == std::endian::little,
              "GGUF is little endian; the encoders copy host bytes");

void AppendU16(uint16_t v, std::string& out) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>(v >> 8));
}

uint16_t LoadU16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

uint16_t FloatToHalf(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t abs = bits & 0x7fffffff;
  if (abs > 0x7f800000) return sign | 0x7e00;   // NaN (quiet)
  if (abs >= 0x477ff000) return sign | 0x7c00;  // rounds to >= 65520: infinity
  if (abs < 0x38800000) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded to
    // nearest even by the FPU's default rounding mode.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // * 2^24
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to
  // 10 bits, ties to even; a mantissa carry correctly bumps the exponent.
  const uint32_t rebased = abs - ((127 - 15) << 23);
  const uint32_t round_bit = 1u << 12;
  const uint32_t odd = (rebased >> 13) & 1;
  const uint32_t rounded = (rebased + (round_bit - 1) + odd) >> 13;
  return sign | static_cast<uint16_t>(rounded);
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000) << 16;
  const uint32_t exponent = (half >> 10) & 0x1f;
  const uint32_t mantissa = half & 0x3ff;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

void AppendF32(std::span<const float> values, std::string& out) {
  const size_t start = out.size();
  out.resize(start + values.size_bytes());
  if (!values.empty()) std::memcpy(out.data() + start, values.data(), values.size_bytes());
}

void AppendF16(std::span<const float> values, std::string& out) {
  out.reserve(out.size() + values.size() * 2);
  for (float v : values) AppendU16(FloatToHalf(v), out);
}

void AppendQ8_0(std::span<const float> values, std::string& out) {
  out.reserve(out.size() + values.size() / kQ8_0BlockSize * kQ8_0BlockBytes);
  for (size_t block = 0; block + kQ8_0BlockSize <= values.size(); block += kQ8_0BlockSize) {
    const std::span<const float> x = values.subspan(block, kQ8_0BlockSize);
    float max_abs = 0;
    for (float v : x) max_abs = std::max(max_abs, std::fabs(v));
    const float d = max_abs / 127.0f;
    const float inverse = d != 0 ? 1.0f / d : 0.0f;
    AppendU16(FloatToHalf(d), out);
    for (float v : x) {
      const long q = std::lround(v * inverse);
      out.push_back(static_cast<char>(static_cast<int8_t>(std::clamp(q, -127L, 127L))));
    }
  }
}

std::vector<float> DecodeF16(std::span<const char> bytes) {
  std::vector<float> values;
  values.reserve(bytes.size() / 2);
  for (size_t i = 0; i + 2 <= bytes.size(); i += 2) {
    values.push_back(HalfToFloat(LoadU16(bytes.data() + i)));
  }
  return values;
}

std::vector<float> DecodeQ8_0(std::span<const char> bytes) {
  std::vector<float> values;
  values.reserve(bytes.size() / kQ8_0BlockBytes * kQ8_0BlockSize);
  for (size_t b = 0; b + kQ8_0BlockBytes <= bytes.size(); b += kQ8_0BlockBytes) {
    const float d = HalfToFloat(LoadU16(bytes.data() + b));
    for (size_t i = 0; i < kQ8_0BlockSize; ++i) {
      values.push_back(d * static_cast<float>(static_cast<int8_t>(bytes[b + 2 + i])));
    }
  }
  return values;
}

}  // namespace zest::tools
