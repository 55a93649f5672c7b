#include "engines/image_converter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace zest::engines {
namespace {

// PNG in (the demuxer is named, so ffmpeg reads nothing else from the
// engine's bytes, such as a playlist naming other files), one frame out.
Result<FfmpegJob> Job(std::string_view format, int quality) {
  if (!ConvertibleImageFormat(format)) {
    return InvalidArgument("zest makes jpeg or webp images, not " + std::string(format));
  }
  FfmpegJob job;
  job.input_args = {"-f", "png_pipe"};
  job.output_args = {"-frames:v", "1"};
  std::vector<std::string> encoder = ImageEncoderArgs(format, quality);
  job.output_args.insert(job.output_args.end(), encoder.begin(), encoder.end());
  job.max_output_bytes = kMaxConvertedImageBytes;
  job.what = "the image";
  job.dir_prefix = "zest-image";
  return job;
}

}  // namespace

bool ConvertibleImageFormat(std::string_view format) {
  return format == "jpeg" || format == "webp";
}

int JpegQscale(int quality) {
  const int q = std::clamp(quality, 0, 100);
  return 31 - static_cast<int>(std::lround(q * 29 / 100.0));
}

std::vector<std::string> ImageEncoderArgs(std::string_view format, int quality) {
  if (format == "jpeg")
    return {"-c:v", "mjpeg", "-q:v", std::to_string(JpegQscale(quality)), "-f", "mjpeg"};
  return {"-c:v", "libwebp", "-quality", std::to_string(std::clamp(quality, 0, 100)), "-f", "webp"};
}

Status ImageConverter::Available() const {
  Status available = ffmpeg_->Available();
  if (available.code() == ErrorCode::kNotFound) {
    return NotFound(available.message() + ": zest makes jpeg and webp images with it");
  }
  return available;
}

Result<std::string> ImageConverter::Checked(Result<std::string> image) const {
  if (image.status().code() == ErrorCode::kInvalidArgument) {
    return EngineFailed("the image engine's answer is not a PNG ffmpeg can read");
  }
  if (!image.ok() && image.status().code() == ErrorCode::kNotFound) return Available();
  return image;
}

boost::asio::awaitable<Result<std::string>> ImageConverter::Convert(std::string png,
                                                                    std::string format,
                                                                    int quality) const {
  Result<FfmpegJob> job = Job(format, quality);
  if (!job.ok()) co_return job.status();
  Result<std::string> image = co_await ffmpeg_->Run(std::move(png), std::move(*job));
  co_return Checked(std::move(image));
}

boost::asio::awaitable<Result<std::string>> ImageConverter::ToPng(std::string image,
                                                                  std::string demuxer,
                                                                  uint64_t max_pixels) const {
  FfmpegJob job;
  // The demuxer is named, as above: ffmpeg reads the one format the
  // image's header said and nothing else. -max_pixels (a decoder option,
  // INT_MAX at most) makes the decoder refuse a frame over the limit before
  // it allocates it.
  const uint64_t pixels = std::min<uint64_t>(max_pixels, std::numeric_limits<int32_t>::max());
  job.input_args = {"-max_pixels", std::to_string(pixels), "-f", std::move(demuxer)};
  job.output_args = {"-frames:v", "1", "-c:v", "png", "-f", "image2pipe"};
  job.max_output_bytes = kMaxConvertedImageBytes;
  job.what = "the image";
  job.dir_prefix = "zest-image";
  Result<std::string> png = co_await ffmpeg_->Run(std::move(image), std::move(job));
  if (!png.ok() && png.status().code() == ErrorCode::kNotFound) co_return Available();
  co_return png;
}

Result<std::string> ImageConverter::ConvertBlocking(std::string_view png, std::string_view format,
                                                    int quality) const {
  ZEST_ASSIGN_OR_RETURN(FfmpegJob job, Job(format, quality));
  return Checked(ffmpeg_->RunBlocking(png, job));
}

}  // namespace zest::engines
