// Image headers read from real files that ffmpeg writes in each format, at
// an odd size so that width and height cannot be swapped unnoticed; and a
// forged PNG header declaring a huge picture in a few bytes.
#include "api/request/image_probe.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::api {
namespace {

using Format = ImageHeader::Format;

// A 37 x 23 test pattern written by ffmpeg as `file` (its extension picks
// the format) with `codec_args`.
std::string Written(const std::filesystem::path& file, const std::string& codec_args = "") {
  const std::string command = "ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=s=37x23 " +
                              codec_args + " -frames:v 1 -y " + file.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ImageProbe, ReadsTheSizeOfEachFormatFfmpegWrites) {
  const testing::TempDir temp("image-probe");
  const std::filesystem::path& dir = temp.path();
  struct Case {
    std::string file, args;
    Format format;
    bool engine_reads;
  };
  const Case cases[] = {
      {"a.png", "", Format::kPng, true},
      {"a.jpg", "", Format::kJpeg, true},
      {"p.jpg", "-c:v mjpeg -q:v 3", Format::kJpeg, true},
      {"a.gif", "", Format::kGif, true},
      {"a.bmp", "", Format::kBmp, true},
      {"lossy.webp", "-c:v libwebp -lossless 0", Format::kWebp, false},
      {"lossless.webp", "-c:v libwebp -lossless 1", Format::kWebp, false},
      {"a.tiff", "", Format::kTiff, false},
  };
  for (const Case& c : cases) {
    ImageHeader h = ProbeImage(Written(dir / c.file, c.args));
    EXPECT_EQ(h.format, c.format) << c.file;
    EXPECT_EQ(h.EngineReads(), c.engine_reads) << c.file;
    EXPECT_EQ(h.Convertible(), !c.engine_reads) << c.file;
    if (c.format == Format::kTiff) continue;  // TIFF's size is known once converted
    EXPECT_EQ(h.width, 37u) << c.file;
    EXPECT_EQ(h.height, 23u) << c.file;
  }
}

TEST(ImageProbe, ReadsADeclaredSizeWithoutThePicture) {
  // The signature and an IHDR chunk declaring 60000 x 50000: all a decoder
  // needs to allocate 9 GB.
  std::string png = "\x89PNG\r\n\x1A\n";
  png += std::string("\0\0\0\x0DIHDR", 8);
  png += std::string("\0\0\xEA\x60\0\0\xC3\x50", 8);
  ImageHeader h = ProbeImage(png);
  EXPECT_EQ(h.format, Format::kPng);
  EXPECT_EQ(h.width, 60000u);
  EXPECT_EQ(h.height, 50000u);
  EXPECT_EQ(h.Pixels(), 3'000'000'000u);
}

// Issue 52, 1: a byte that starts no marker between segments stopped the
// walk and reported no size (0 x 0 passed the pixel check), while
// stb_image skips such bytes and decoded the 6400 x 6000 frame after them.
TEST(ImageProbe, JpegWalksPastBytesThatStartNoMarkerToTheFrame) {
  const std::string soi("\xFF\xD8", 2);
  const std::string app0("\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 18);
  // SOF0: length 17, precision 8, height 6000 (0x1770), width 6400 (0x1900).
  const std::string sof0("\xFF\xC0\x00\x11\x08\x17\x70\x19\x00\x03", 10);
  ImageHeader h = ProbeImage(soi + app0 + std::string("\x00", 1) + sof0);
  EXPECT_EQ(h.format, Format::kJpeg);
  EXPECT_EQ(h.width, 6400u);
  EXPECT_EQ(h.height, 6000u);
  // Fill bytes before a marker, and garbage of several bytes.
  h = ProbeImage(soi + app0 + std::string("\x12\x34\xFF\xFF", 4) + sof0);
  EXPECT_EQ(h.width, 6400u);
  EXPECT_EQ(h.height, 6000u);
}

TEST(ImageProbe, JpegWithoutAFrameBeforeItsScanHasNoSize) {
  const std::string soi("\xFF\xD8", 2);
  const std::string app0("\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 18);
  const std::string sos("\xFF\xDA\x00\x08\x01\x01\x00\x00\x3F\x00", 10);
  const std::string sof0("\xFF\xC0\x00\x11\x08\x17\x70\x19\x00\x03", 10);
  EXPECT_EQ(ProbeImage(soi + app0 + sos + sof0).Pixels(), 0u) << "a scan before the frame";
  EXPECT_EQ(ProbeImage(soi + app0).Pixels(), 0u) << "cut short";
  EXPECT_EQ(ProbeImage(soi + std::string("\xFF\x00", 2) + sof0).Pixels(), 0u)
      << "a marker no JPEG holds";
  EXPECT_EQ(ProbeImage(soi + std::string("\xFF\xC0\x00\x11\x08\x17", 6)).Pixels(), 0u)
      << "a frame cut short";
  EXPECT_EQ(ProbeImage(soi + app0).format, Format::kJpeg);
}

TEST(ImageProbe, KnowsIsoMediaBrandsAndNothingElse) {
  EXPECT_EQ(ProbeImage(std::string("\0\0\0\x18"
                                   "ftypheic",
                                   12))
                .format,
            Format::kHeif);
  EXPECT_EQ(ProbeImage(std::string("\0\0\0\x18"
                                   "ftypavif",
                                   12))
                .format,
            Format::kAvif);
  EXPECT_EQ(ProbeImage(std::string("\0\0\0\x18"
                                   "ftypisom",
                                   12))
                .format,
            Format::kUnknown);
  EXPECT_EQ(ProbeImage("<svg xmlns='http://www.w3.org/2000/svg'/>").format, Format::kUnknown);
  EXPECT_EQ(ProbeImage("").format, Format::kUnknown);
  // Cut short: the format, without a size.
  ImageHeader cut = ProbeImage("\x89PNG\r\n\x1A\n");
  EXPECT_EQ(cut.format, Format::kPng);
  EXPECT_EQ(cut.Pixels(), 0u);
}

}  // namespace
}  // namespace zest::api
