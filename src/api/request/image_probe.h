// What an image's first bytes say: its format and its size in pixels,
// read from the header alone (nothing decoded), so a request's images can
// be checked before an engine or a converter spends memory on them. A
// 40 KB PNG may declare 60000 × 60000 pixels: the engine would allocate
// 10 GB to decode it.
//
// The engine (llama.cpp's libmtmd, through stb_image) reads PNG, JPEG, GIF
// and BMP; zest converts WebP, TIFF, HEIF/HEIC and AVIF into PNG first
// (engines/image_converter.h), and refuses anything else.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zest::api {

struct ImageHeader {
  enum class Format { kUnknown, kPng, kJpeg, kGif, kBmp, kWebp, kTiff, kHeif, kAvif };
  Format format = Format::kUnknown;
  // 0 when the header does not say (HEIF, AVIF, TIFF: known once converted)
  // or the header is cut short.
  uint32_t width = 0;
  uint32_t height = 0;

  // PNG, JPEG, GIF, BMP: the engine reads them as they are.
  bool EngineReads() const;
  // A format zest converts to PNG before the engine sees it.
  bool Convertible() const;
  // "image/png", ...; "" for kUnknown.
  std::string Mime() const;
  // "PNG", "JPEG", ...: for messages.
  std::string Name() const;
  uint64_t Pixels() const { return uint64_t{width} * height; }
};

ImageHeader ProbeImage(std::string_view bytes);

}  // namespace zest::api
