// PNG (RFC 2083) with an uncompressed zlib stream (RFC 1950/1951 stored
// blocks): signature, IHDR, one IDAT, IEND.
#include "tools/png_image.h"

#include <algorithm>
#include <array>

namespace zest::tools {
namespace {

// A stored deflate block holds at most 65535 bytes.
constexpr size_t kMaxStoredBlock = 65535;

void AppendBigEndian(uint32_t value, std::string& out) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(value >> shift));
}

// Length, type, data, and the CRC of type and data.
void AppendChunk(std::string_view type, std::string_view data, std::string& out) {
  AppendBigEndian(static_cast<uint32_t>(data.size()), out);
  std::string typed(type);
  typed.append(data);
  out.append(typed);
  AppendBigEndian(Crc32(typed), out);
}

// A zlib stream of stored (uncompressed) deflate blocks.
std::string ZlibStored(std::string_view data) {
  std::string out = {'\x78', '\x01'};  // deflate, 32 KiB window; header check bits
  size_t pos = 0;
  do {
    const size_t n = std::min(kMaxStoredBlock, data.size() - pos);
    const bool last = pos + n == data.size();
    out.push_back(last ? '\x01' : '\x00');  // BFINAL, BTYPE 00 (stored)
    const auto len = static_cast<uint16_t>(n);
    const auto nlen = static_cast<uint16_t>(~len);
    out.push_back(static_cast<char>(len & 0xff));
    out.push_back(static_cast<char>(len >> 8));
    out.push_back(static_cast<char>(nlen & 0xff));
    out.push_back(static_cast<char>(nlen >> 8));
    out.append(data.substr(pos, n));
    pos += n;
  } while (pos < data.size());
  AppendBigEndian(Adler32(data), out);
  return out;
}

}  // namespace

uint32_t Crc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> table{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[n] = c;
    }
    return table;
  }();
  uint32_t crc = 0xffffffffu;
  for (unsigned char b : bytes) crc = kTable[(crc ^ b) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

uint32_t Adler32(std::string_view bytes) {
  constexpr uint32_t kModulus = 65521;
  uint32_t a = 1, b = 0;
  for (unsigned char c : bytes) {
    a = (a + c) % kModulus;
    b = (b + a) % kModulus;
  }
  return (b << 16) | a;
}

std::string EncodePng(uint32_t width, uint32_t height, std::string_view rgb) {
  std::string header;
  AppendBigEndian(width, header);
  AppendBigEndian(height, header);
  header.append({'\x08', '\x02', '\x00', '\x00', '\x00'});  // 8-bit RGB, no interlace
  // Each row is preceded by its filter type, 0 (none).
  const size_t row = static_cast<size_t>(width) * 3;
  std::string scanlines;
  scanlines.reserve((row + 1) * height);
  for (uint32_t y = 0; y < height; ++y) {
    scanlines.push_back('\0');
    scanlines.append(rgb.substr(y * row, row));
  }
  std::string png = "\x89PNG\r\n\x1a\n";
  AppendChunk("IHDR", header, png);
  AppendChunk("IDAT", ZlibStored(scanlines), png);
  AppendChunk("IEND", "", png);
  return png;
}

std::string GradientRgb(uint32_t width, uint32_t height) {
  std::string rgb;
  rgb.reserve(static_cast<size_t>(width) * height * 3);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      rgb.push_back(static_cast<char>(x * 255 / std::max(width - 1, 1u)));
      rgb.push_back(static_cast<char>(y * 255 / std::max(height - 1, 1u)));
      rgb.push_back(static_cast<char>(128));
    }
  }
  return rgb;
}

}  // namespace zest::tools
