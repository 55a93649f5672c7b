// The speech formats: names, content types, when ffmpeg is needed and what
// it is asked for.
#include "engines/speech_format.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/test_wav.h"
#include "engines/wav_header.h"

namespace zest::engines {
namespace {

TEST(SpeechFormatTest, ParsesOpenAisFormatsWithMp3TheDefault) {
  EXPECT_EQ(*ParseSpeechFormat(""), SpeechFormat::kMp3);
  EXPECT_EQ(*ParseSpeechFormat("opus"), SpeechFormat::kOpus);
  EXPECT_EQ(*ParseSpeechFormat("pcm"), SpeechFormat::kPcm);
  EXPECT_EQ(ParseSpeechFormat("ogg").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_STREQ(SpeechContentType(SpeechFormat::kMp3), "audio/mpeg");
  EXPECT_STREQ(SpeechContentType(SpeechFormat::kWav), "audio/wav");
}

TEST(SpeechFormatTest, OnlyWavAndMatchingPcmAtSpeedOneSkipFfmpeg) {
  SpeechAudio at24k = *ReadWav(Wav(24000, 1, 100));
  SpeechAudio at16k = *ReadWav(Wav(16000, 1, 100));
  EXPECT_FALSE(SpeechNeedsFfmpeg(at24k, SpeechFormat::kWav, 1.0));
  EXPECT_FALSE(SpeechNeedsFfmpeg(at24k, SpeechFormat::kPcm, 1.0));
  EXPECT_EQ(SpeechWithoutFfmpeg(at24k, SpeechFormat::kPcm).size(), 200u);
  EXPECT_TRUE(SpeechNeedsFfmpeg(at16k, SpeechFormat::kPcm, 1.0));
  EXPECT_TRUE(SpeechNeedsFfmpeg(at24k, SpeechFormat::kWav, 1.5));
  EXPECT_TRUE(SpeechNeedsFfmpeg(at24k, SpeechFormat::kMp3, 1.0));
}

TEST(SpeechFormatTest, SpeedsBeyondOneAtempoStepAreChained) {
  auto filter = [](double speed) {
    std::vector<std::string> args = SpeechOutputArgs(SpeechFormat::kWav, speed);
    auto it = std::find(args.begin(), args.end(), "-filter:a");
    return it == args.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(filter(1.0), "");
  EXPECT_EQ(filter(1.5), "atempo=1.5");
  EXPECT_EQ(filter(4.0), "atempo=2,atempo=2");
  EXPECT_EQ(filter(0.25), "atempo=0.5,atempo=0.5");
  std::vector<std::string> pcm = SpeechOutputArgs(SpeechFormat::kPcm, 1.0);
  EXPECT_NE(std::find(pcm.begin(), pcm.end(), "s16le"), pcm.end());
  EXPECT_NE(std::find(pcm.begin(), pcm.end(), "24000"), pcm.end());
}

}  // namespace
}  // namespace zest::engines
