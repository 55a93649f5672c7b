// The image converter with the real ffmpeg (`make test` installs it) in the
// real sandbox: a PNG in, a JPEG or WebP of the same size out, read back by
// ffprobe; quality changes the bytes; what is not a PNG is refused; nothing
// is left behind. The quality mapping is checked as a table.
#include "engines/image_converter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "config/settings.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

using testing::TempDir;

std::shared_ptr<const Ffmpeg> Installed(const std::filesystem::path& work_root) {
  LocateOptions options;
  options.binary_name = "ffmpeg";
  options.path_env = config::ProcessEnv("PATH").value_or("");
  FfmpegSetup setup;
  setup.ffmpeg = LocateEngine(options);
  setup.work_root = work_root;
  return std::make_shared<const Ffmpeg>(std::move(setup));
}

// A `width` x `height` PNG of noise, made by ffmpeg itself (outside the
// converter), so that quality shows in the encoded size.
std::string NoisePng(const std::filesystem::path& dir, int width, int height) {
  const std::filesystem::path file = dir / "noise.png";
  const std::string command =
      "ffmpeg -nostdin -loglevel error -f lavfi -i 'nullsrc=s=" + std::to_string(width) + "x" +
      std::to_string(height) + ",geq=random(1)*255:128:128' -frames:v 1 -y " + file.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(file, std::ios::binary);
  std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(file);
  return png;
}

// "codec,width,height" of an image, as ffprobe reads it.
std::string Probe(const std::filesystem::path& dir, const std::string& bytes) {
  const std::filesystem::path file = dir / "probe";
  std::ofstream(file, std::ios::binary) << bytes;
  const std::string command =
      "ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 " + file.string();
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
    ::pclose(pipe);
  }
  std::filesystem::remove(file);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST(ImageConverterTest, QualityMapsOntoEachEncodersScale) {
  EXPECT_EQ(JpegQscale(100), 2);
  EXPECT_EQ(JpegQscale(0), 31);
  EXPECT_EQ(JpegQscale(50), 16);
  EXPECT_EQ(JpegQscale(150), 2);  // clamped
  EXPECT_EQ(ImageEncoderArgs("jpeg", 75),
            (std::vector<std::string>{"-c:v", "mjpeg", "-q:v", "9", "-f", "mjpeg"}));
  EXPECT_EQ(ImageEncoderArgs("webp", 75),
            (std::vector<std::string>{"-c:v", "libwebp", "-quality", "75", "-f", "webp"}));
  EXPECT_TRUE(ConvertibleImageFormat("jpeg"));
  EXPECT_TRUE(ConvertibleImageFormat("webp"));
  EXPECT_FALSE(ConvertibleImageFormat("png"));
  EXPECT_FALSE(ConvertibleImageFormat("gif"));
}

TEST(ImageConverterTest, MakesJpegAndWebpOfTheSameSize) {
  TempDir work;
  TempDir scratch;
  ImageConverter converter(Installed(work.path()));
  ASSERT_TRUE(converter.Available().ok()) << converter.Available().message();
  const std::string png = NoisePng(scratch.path(), 96, 64);
  ASSERT_EQ(png.substr(1, 3), "PNG");

  Result<std::string> jpeg = converter.ConvertBlocking(png, "jpeg", 90);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status().message();
  EXPECT_EQ(jpeg->substr(0, 3), "\xff\xd8\xff");
  EXPECT_EQ(Probe(scratch.path(), *jpeg), "mjpeg,96,64");

  Result<std::string> webp = converter.ConvertBlocking(png, "webp", 90);
  ASSERT_TRUE(webp.ok()) << webp.status().message();
  EXPECT_EQ(webp->substr(0, 4), "RIFF");
  EXPECT_EQ(webp->substr(8, 4), "WEBP");
  EXPECT_EQ(Probe(scratch.path(), *webp), "webp,96,64");
  EXPECT_TRUE(std::filesystem::is_empty(work.path())) << "its directories are gone";
}

TEST(ImageConverterTest, LowerQualityMakesSmallerFiles) {
  TempDir work;
  TempDir scratch;
  ImageConverter converter(Installed(work.path()));
  const std::string png = NoisePng(scratch.path(), 128, 128);
  for (const char* format : {"jpeg", "webp"}) {
    Result<std::string> best = converter.ConvertBlocking(png, format, 100);
    Result<std::string> worst = converter.ConvertBlocking(png, format, 0);
    ASSERT_TRUE(best.ok() && worst.ok()) << format;
    EXPECT_LT(worst->size() * 2, best->size()) << format;
  }
}

TEST(ImageConverterTest, WhatIsNotAPngIsRefusedAndNothingIsLeft) {
  TempDir work;
  ImageConverter converter(Installed(work.path()));
  Result<std::string> out = converter.ConvertBlocking("this is not an image", "webp", 80);
  EXPECT_EQ(out.status().code(), ErrorCode::kEngineFailed);
  EXPECT_NE(out.status().message().find("not a PNG ffmpeg can read"), std::string::npos)
      << out.status().message();
  EXPECT_EQ(converter.ConvertBlocking("x", "gif", 80).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(std::filesystem::is_empty(work.path()));
}

TEST(ImageConverterTest, WithoutFfmpegItSaysHowToGetIt) {
  ImageConverter converter(std::make_shared<const Ffmpeg>(FfmpegSetup{}));
  EXPECT_EQ(converter.Available().code(), ErrorCode::kNotFound);
  EXPECT_NE(converter.Available().message().find("apt install ffmpeg"), std::string::npos);
  EXPECT_NE(converter.Available().message().find("jpeg and webp"), std::string::npos);
  EXPECT_EQ(converter.ConvertBlocking("x", "jpeg", 80).status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace zest::engines
