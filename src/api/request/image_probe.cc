#include "api/request/image_probe.h"

#include <array>
#include <cstdlib>

namespace zest::api {

namespace {

using Format = ImageHeader::Format;

// Unsigned integers at `at`, or 0 past the end.
uint32_t Byte(std::string_view b, size_t at) {
  return at < b.size() ? static_cast<unsigned char>(b[at]) : 0;
}
uint32_t BigEndian16(std::string_view b, size_t at) { return Byte(b, at) << 8 | Byte(b, at + 1); }
uint32_t BigEndian32(std::string_view b, size_t at) {
  return BigEndian16(b, at) << 16 | BigEndian16(b, at + 2);
}
uint32_t LittleEndian16(std::string_view b, size_t at) {
  return Byte(b, at) | Byte(b, at + 1) << 8;
}
uint32_t LittleEndian24(std::string_view b, size_t at) {
  return LittleEndian16(b, at) | Byte(b, at + 2) << 16;
}
uint32_t LittleEndian32(std::string_view b, size_t at) {
  return LittleEndian16(b, at) | LittleEndian16(b, at + 2) << 16;
}

bool At(std::string_view b, size_t at, std::string_view what) {
  return b.size() >= at + what.size() && b.substr(at, what.size()) == what;
}

ImageHeader Png(std::string_view b) {
  // The first chunk is IHDR: width and height, big-endian, at 16 and 20.
  if (!At(b, 12, "IHDR") || b.size() < 24) return {Format::kPng};
  return {Format::kPng, BigEndian32(b, 16), BigEndian32(b, 20)};
}

// The size is in the first start-of-frame segment (SOF0-SOF15 but for
// C4, C8 and CC, which are tables). The walk is the decoder's (stb_image,
// in libmtmd): segments skipped by their lengths, 0xFF fill bytes skipped,
// and a byte that starts no marker skipped one at a time, as stb_image
// skips it. Stopping at such a byte instead reported no size, which passed
// the pixel check while the engine read on to a 6400 x 6000 frame. Anything
// else before the frame (a scan, the end, a marker no JPEG holds, the end
// of the bytes) gives no size: the caller refuses the image.
ImageHeader Jpeg(std::string_view b) {
  size_t at = 2;
  while (at < b.size()) {
    if (Byte(b, at) != 0xFF) {  // not a marker
      ++at;
      continue;
    }
    while (at < b.size() && Byte(b, at) == 0xFF) ++at;  // fill bytes
    if (at >= b.size()) break;
    const uint32_t marker = Byte(b, at);
    ++at;  // `at` is now the segment's length, if it has one
    if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) continue;
    if (marker < 0xC0 || marker == 0xD9 || marker == 0xDA) break;
    if (at + 2 > b.size()) break;
    const uint32_t length = BigEndian16(b, at);
    if (length < 2) break;
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      if (length < 8 || at + 7 > b.size()) break;
      return {Format::kJpeg, BigEndian16(b, at + 5), BigEndian16(b, at + 3)};
    }
    at += length;
  }
  return {Format::kJpeg};
}

ImageHeader Bmp(std::string_view b) {
  uint32_t dib = LittleEndian32(b, 14);
  if (dib == 12) return {Format::kBmp, LittleEndian16(b, 18), LittleEndian16(b, 20)};  // OS/2
  if (dib < 40 || b.size() < 26) return {Format::kBmp};
  // Height is negative for rows stored top-down.
  auto width = static_cast<int32_t>(LittleEndian32(b, 18));
  auto height = static_cast<int32_t>(LittleEndian32(b, 22));
  return {Format::kBmp, static_cast<uint32_t>(std::abs(static_cast<int64_t>(width))),
          static_cast<uint32_t>(std::abs(static_cast<int64_t>(height)))};
}

// RIFF....WEBP and then one of three first chunks (lossy, lossless,
// extended), each with the size in its own layout.
ImageHeader Webp(std::string_view b) {
  if (At(b, 12, "VP8X") && b.size() >= 30) {
    return {Format::kWebp, LittleEndian24(b, 24) + 1, LittleEndian24(b, 27) + 1};
  }
  if (At(b, 12, "VP8L") && Byte(b, 20) == 0x2F && b.size() >= 25) {
    uint32_t bits = LittleEndian32(b, 21);
    return {Format::kWebp, (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1};
  }
  if (At(b, 12, "VP8 ") && At(b, 23, "\x9D\x01\x2A") && b.size() >= 30) {
    return {Format::kWebp, LittleEndian16(b, 26) & 0x3FFF, LittleEndian16(b, 28) & 0x3FFF};
  }
  return {Format::kWebp};
}

// ISO base media files (HEIF, AVIF) by the major brand of their ftyp box.
Format IsoBrand(std::string_view b) {
  if (!At(b, 4, "ftyp") || b.size() < 12) return Format::kUnknown;
  std::string_view brand = b.substr(8, 4);
  if (brand == "avif" || brand == "avis") return Format::kAvif;
  static constexpr std::array<std::string_view, 6> kHeif = {"heic", "heix", "heim",
                                                            "heis", "mif1", "msf1"};
  for (std::string_view h : kHeif) {
    if (brand == h) return Format::kHeif;
  }
  return Format::kUnknown;
}

}  // namespace

ImageHeader ProbeImage(std::string_view b) {
  if (At(b, 0, "\x89PNG\r\n\x1A\n")) return Png(b);
  if (At(b, 0, "\xFF\xD8\xFF")) return Jpeg(b);
  if (At(b, 0, "GIF87a") || At(b, 0, "GIF89a")) {
    return {Format::kGif, LittleEndian16(b, 6), LittleEndian16(b, 8)};
  }
  if (At(b, 0, "BM") && b.size() >= 18) return Bmp(b);
  if (At(b, 0, "RIFF") && At(b, 8, "WEBP")) return Webp(b);
  if (At(b, 0, "II*\0") || At(b, 0, "MM\0*")) return {Format::kTiff};
  if (Format iso = IsoBrand(b); iso != Format::kUnknown) return {iso};
  return {};
}

namespace {

// What zest knows of each format: one row each.
struct FormatFacts {
  Format format;
  std::string_view name;  // for messages
  std::string_view mime;
  bool engine_reads;  // else converted to PNG first
};

constexpr std::array<FormatFacts, 8> kFormats = {{
    {Format::kPng, "PNG", "image/png", true},
    {Format::kJpeg, "JPEG", "image/jpeg", true},
    {Format::kGif, "GIF", "image/gif", true},
    {Format::kBmp, "BMP", "image/bmp", true},
    {Format::kWebp, "WebP", "image/webp", false},
    {Format::kTiff, "TIFF", "image/tiff", false},
    {Format::kHeif, "HEIF", "image/heic", false},
    {Format::kAvif, "AVIF", "image/avif", false},
}};

const FormatFacts* FactsOf(Format format) {
  for (const FormatFacts& f : kFormats) {
    if (f.format == format) return &f;
  }
  return nullptr;  // kUnknown
}

}  // namespace

bool ImageHeader::EngineReads() const {
  const FormatFacts* f = FactsOf(format);
  return f != nullptr && f->engine_reads;
}

bool ImageHeader::Convertible() const {
  const FormatFacts* f = FactsOf(format);
  return f != nullptr && !f->engine_reads;
}

std::string ImageHeader::Mime() const {
  const FormatFacts* f = FactsOf(format);
  return f != nullptr ? std::string(f->mime) : "";
}

std::string ImageHeader::Name() const {
  const FormatFacts* f = FactsOf(format);
  return f != nullptr ? std::string(f->name) : "an unknown format";
}

}  // namespace zest::api
