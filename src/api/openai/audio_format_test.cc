#include "api/openai/audio_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace zest::api::openai {
namespace {

using namespace std::string_literals;

TEST(AudioFormat, KnowsTheFormatsByTheirFirstBytes) {
  EXPECT_EQ(SniffAudio("RIFF\x24\x08\0\0WAVEfmt "s), "wav");
  EXPECT_EQ(SniffAudio("fLaC\0\0\0\x22"s), "flac");
  EXPECT_EQ(SniffAudio("ID3\x04\0\0"s), "mp3");
  EXPECT_EQ(SniffAudio("\xFF\xFB\x90\x64"s), "mp3");
  EXPECT_EQ(SniffAudio("OggS\0\x02......................\x01vorbis"s), "ogg");
  EXPECT_EQ(SniffAudio("OggS\0\x02......................OpusHead"s), "opus");
  EXPECT_EQ(SniffAudio("\x1A\x45\xDF\xA3\x9F"s), "webm");
  EXPECT_EQ(SniffAudio("\0\0\0\x20"
                       "ftypM4A "s),
            "mp4");
  EXPECT_EQ(SniffAudio("hello"), "");
  EXPECT_EQ(SniffAudio(""), "");
}

// A plain WAV's length is known by its size; any other audio needs ffmpeg
// to be measured (issue 52, 2), so without it only a plain WAV is taken.
TEST(AudioFormat, WithoutFfmpegOnlyAPlainWavIsTaken) {
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [](uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); };
  const std::string plain = "RIFF" + u32(36 + 4) + "WAVEfmt " + u32(16) + u16(1) + u16(1) +
                            u32(16000) + u32(32000) + u16(2) + u16(16) + "data" + u32(4) +
                            "\0\0\0\0"s;
  EXPECT_TRUE(CheckAudioFormat(plain).ok());
  for (const std::string& other :
       {"fLaC\0\0\0\x22"s, "ID3\x04\0\0"s, "RIFF\x24\x08\0\0WAVEfmt "s}) {
    Status refused = CheckAudioFormat(other);
    EXPECT_EQ(refused.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(refused.message().find("needs ffmpeg"), std::string::npos) << refused.message();
  }
  Status webm = CheckAudioFormat("\x1A\x45\xDF\xA3\x9F"s);
  EXPECT_EQ(webm.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(webm.message().find("ffmpeg -i in.webm"), std::string::npos) << webm.message();
  EXPECT_NE(CheckAudioFormat("hello").message().find("not audio"), std::string::npos);
  EXPECT_TRUE(DecodedByEngines("OggS\0\x02......................\x01vorbis"s));
  EXPECT_FALSE(DecodedByEngines("OggS\0\x02......................OpusHead"s));
  EXPECT_FALSE(DecodedByEngines("hello"));
}

}  // namespace
}  // namespace zest::api::openai
