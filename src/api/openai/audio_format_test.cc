#include "api/openai/audio_format.h"

#include <gtest/gtest.h>

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

TEST(AudioFormat, RefusesWhatEnginesCannotDecodeWithTheWayOut) {
  EXPECT_TRUE(CheckAudioFormat("RIFF\x24\x08\0\0WAVEfmt "s).ok());
  EXPECT_TRUE(CheckAudioFormat("fLaC\0\0\0\x22"s).ok());
  Status webm = CheckAudioFormat("\x1A\x45\xDF\xA3\x9F"s);
  EXPECT_EQ(webm.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(webm.message().find("webm is not supported"), std::string::npos) << webm.message();
  EXPECT_NE(webm.message().find("ffmpeg -i in.webm"), std::string::npos);
  EXPECT_NE(CheckAudioFormat("hello").message().find("not audio"), std::string::npos);
  EXPECT_TRUE(DecodedByEngines("OggS\0\x02......................\x01vorbis"s));
  EXPECT_FALSE(DecodedByEngines("OggS\0\x02......................OpusHead"s));
  EXPECT_FALSE(DecodedByEngines("hello"));
}

}  // namespace
}  // namespace zest::api::openai
