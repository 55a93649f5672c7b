// EncodePng: a small RGB image as PNG bytes, for tests that send images to
// a real engine (llama-server's image decoder reads PNG). Uncompressed
// (deflate's stored blocks), so it needs no zlib; fine for the few-kilobyte
// images tests use. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zest::tools {

// `rgb` holds width * height pixels, 3 bytes each (red, green, blue), row
// by row from the top; width and height at least 1. An 8-bit truecolour
// PNG of them.
std::string EncodePng(uint32_t width, uint32_t height, std::string_view rgb);

// A width x height test card: a colour gradient, so no two rows are alike.
std::string GradientRgb(uint32_t width, uint32_t height);

// The checksums PNG uses (exposed for tests): CRC-32 (ISO 3309, each
// chunk's) and Adler-32 (the zlib stream's).
uint32_t Crc32(std::string_view bytes);
uint32_t Adler32(std::string_view bytes);

}  // namespace zest::tools
