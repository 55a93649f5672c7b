// ImageConverter: an image engine's PNG made into JPEG or WebP by ffmpeg
// (ffmpeg.h: sandboxed, on its own threads). zest asks image engines for
// PNG only (not every engine encodes anything else) and makes the format
// the client asked for itself. The other way, a client's WebP or TIFF in a
// chat request becomes PNG for a vision engine.
//
// Quality: OpenAI's `output_compression` (0-100, default 100) is taken as
// the encoder's quality, 100 the best:
//   webp: libwebp's -quality, the same 0-100 scale (lossy);
//   jpeg: mjpeg's -q:v, 2 (best) to 31 (smallest): 31 - round(quality × 29 / 100).
//
// Thread-safe.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/ffmpeg.h"

namespace zest::engines {

// An image may be no larger once converted (a 2048x2048 JPEG at the best
// quality is a few MB).
inline constexpr uint64_t kMaxConvertedImageBytes = 64ull << 20;

// Whether zest converts PNG into `format` ("jpeg", "webp").
bool ConvertibleImageFormat(std::string_view format);
// jpeg's -q:v for `quality` 0-100 (clamped): 31 at 0 down to 2 at 100.
int JpegQscale(int quality);
// The encoder's arguments for `format` at `quality` (both as above).
std::vector<std::string> ImageEncoderArgs(std::string_view format, int quality);

class ImageConverter {
 public:
  // `ffmpeg` is shared with the audio converter; never null.
  explicit ImageConverter(std::shared_ptr<const Ffmpeg> ffmpeg) : ffmpeg_(std::move(ffmpeg)) {}

  // Ok when ffmpeg is installed and can be sandboxed; else why not, with
  // how to fix it.
  Status Available() const;
  std::string Describe() const { return ffmpeg_->Describe(); }

  // `png` as `format` at `quality`, on ffmpeg's threads. kInvalidArgument
  // for a format it does not make; kEngineFailed when the engine's image is
  // not a PNG ffmpeg reads; kTooLarge, kTimeout; kNotFound/kUnavailable as
  // Available() says.
  boost::asio::awaitable<Result<std::string>> Convert(std::string png, std::string format,
                                                      int quality) const;
  // A client's image in a format the engine does not read (`demuxer`:
  // ffmpeg's name for it, e.g. "webp_pipe") as PNG, for chat requests with
  // images (api/chat_images.h). ffmpeg's decoder refuses a picture of more
  // than `max_pixels` (its -max_pixels) before allocating it: TIFF, HEIF
  // and AVIF headers are not read by zest. kInvalidArgument when ffmpeg
  // cannot read it (or it is over `max_pixels`); kTooLarge, kTimeout;
  // kNotFound/kUnavailable as Available() says.
  boost::asio::awaitable<Result<std::string>> ToPng(std::string image, std::string demuxer,
                                                    uint64_t max_pixels) const;
  // The same, blocking the calling thread.
  Result<std::string> ConvertBlocking(std::string_view png, std::string_view format,
                                      int quality) const;

 private:
  Result<std::string> Checked(Result<std::string> image) const;

  const std::shared_ptr<const Ffmpeg> ffmpeg_;
};

}  // namespace zest::engines
