// Encodings of F32 values into ggml tensor storage: IEEE half (F16) and Q8_0
// (blocks of 32 values: an F16 scale d = max|x|/127 and 32 int8 round(x/d)).
// The decoders exist for tests and for checking a written file. Pure
// functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zest::tools {

// NOLINTBEGIN(readability-identifier-naming): Q8_0 is ggml's name for the type.
inline constexpr size_t kQ8_0BlockSize = 32;
inline constexpr size_t kQ8_0BlockBytes = 2 + kQ8_0BlockSize;

// Round-to-nearest-even; overflow becomes infinity, NaN stays NaN.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t half);

// Appends the little-endian encoding of `values` to `out`.
void AppendF32(std::span<const float> values, std::string& out);
void AppendF16(std::span<const float> values, std::string& out);
// values.size() must be a multiple of kQ8_0BlockSize.
void AppendQ8_0(std::span<const float> values, std::string& out);

std::vector<float> DecodeF16(std::span<const char> bytes);
std::vector<float> DecodeQ8_0(std::span<const char> bytes);
// NOLINTEND(readability-identifier-naming)

}  // namespace zest::tools
