// The PNG encoder's layout, checked by walking its chunks and its stored
// deflate blocks; that a real decoder reads it is checked by the engine
// test (engines/real_engine_test.cc sends one to llama-server).
#include "tools/png_image.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zest::tools {
namespace {

uint32_t BigEndianAt(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[pos + i]);
  return v;
}

struct Chunk {
  std::string type, data;
};

// The chunks after the signature, each CRC checked.
std::vector<Chunk> Chunks(const std::string& png) {
  std::vector<Chunk> chunks;
  for (size_t pos = 8; pos + 12 <= png.size();) {
    const uint32_t length = BigEndianAt(png, pos);
    Chunk chunk{png.substr(pos + 4, 4), png.substr(pos + 8, length)};
    EXPECT_EQ(BigEndianAt(png, pos + 8 + length), Crc32(chunk.type + chunk.data)) << chunk.type;
    chunks.push_back(std::move(chunk));
    pos += 12 + length;
  }
  return chunks;
}

// The bytes of a zlib stream of stored blocks; checks its framing.
std::string Unstore(const std::string& zlib) {
  EXPECT_EQ((static_cast<unsigned char>(zlib[0]) * 256 + static_cast<unsigned char>(zlib[1])) % 31,
            0);
  std::string out;
  size_t pos = 2;
  for (bool last = false; !last;) {
    last = zlib[pos] & 1;
    EXPECT_EQ(zlib[pos] & 6, 0) << "not a stored block";
    const unsigned len =
        static_cast<unsigned char>(zlib[pos + 1]) | static_cast<unsigned char>(zlib[pos + 2]) << 8;
    const unsigned nlen =
        static_cast<unsigned char>(zlib[pos + 3]) | static_cast<unsigned char>(zlib[pos + 4]) << 8;
    EXPECT_EQ(len ^ 0xffff, nlen);
    out.append(zlib, pos + 5, len);
    pos += 5 + len;
  }
  EXPECT_EQ(BigEndianAt(zlib, pos), Adler32(out));
  EXPECT_EQ(pos + 4, zlib.size());
  return out;
}

TEST(PngImageTest, ChecksumsMatchTheirStandardCheckValues) {
  EXPECT_EQ(Crc32("123456789"), 0xcbf43926u);
  EXPECT_EQ(Crc32(""), 0u);
  EXPECT_EQ(Adler32("Wikipedia"), 0x11e60398u);
  EXPECT_EQ(Adler32(""), 1u);
}

TEST(PngImageTest, WritesHeaderAndRowsUncompressed) {
  const std::string rgb = GradientRgb(5, 3);
  ASSERT_EQ(rgb.size(), 5u * 3 * 3);
  const std::string png = EncodePng(5, 3, rgb);
  ASSERT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  const std::vector<Chunk> chunks = Chunks(png);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].type, "IHDR");
  EXPECT_EQ(BigEndianAt(chunks[0].data, 0), 5u);
  EXPECT_EQ(BigEndianAt(chunks[0].data, 4), 3u);
  EXPECT_EQ(chunks[0].data.substr(8), std::string("\x08\x02\x00\x00\x00", 5));
  EXPECT_EQ(chunks[1].type, "IDAT");
  std::string expected;
  for (int y = 0; y < 3; ++y) expected += '\0' + rgb.substr(y * 15, 15);
  EXPECT_EQ(Unstore(chunks[1].data), expected);
  EXPECT_EQ(chunks[2].type, "IEND");
  EXPECT_TRUE(chunks[2].data.empty());
}

// Over 65535 bytes of rows: several stored blocks.
TEST(PngImageTest, SplitsLargeImagesIntoBlocks) {
  const std::string rgb = GradientRgb(200, 200);
  const std::vector<Chunk> chunks = Chunks(EncodePng(200, 200, rgb));
  ASSERT_EQ(chunks.size(), 3u);
  const std::string rows = Unstore(chunks[1].data);
  ASSERT_EQ(rows.size(), 200u * 601);
  EXPECT_EQ(rows.substr(601 * 199 + 1), rgb.substr(600 * 199));
}

}  // namespace
}  // namespace zest::tools
