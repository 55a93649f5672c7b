// ReadWav on WAV files as engines write them and as they should never be.
#include "engines/wav_header.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/test_wav.h"

namespace zest::engines {
namespace {

TEST(WavHeaderTest, ReadsRateChannelsAndLength) {
  Result<SpeechAudio> audio = ReadWav(Wav(24000, 1, 48000));
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->sample_rate, 24000u);
  EXPECT_EQ(audio->channels, 1);
  EXPECT_EQ(audio->bits_per_sample, 16);
  EXPECT_DOUBLE_EQ(audio->seconds, 2.0);
  EXPECT_EQ(WavSamples(*audio).size(), 96000u);
  EXPECT_TRUE(std::all_of(WavSamples(*audio).begin(), WavSamples(*audio).end(),
                          [](char c) { return c == '\x01'; }));
}

TEST(WavHeaderTest, ADataSizeRunningPastTheFileEndsWithIt) {
  Result<SpeechAudio> audio = ReadWav(Wav(16000, 1, 16000, 0xFFFFFFFF));
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_DOUBLE_EQ(audio->seconds, 1.0);
}

TEST(WavHeaderTest, WhatIsNotAWavIsAnError) {
  EXPECT_FALSE(ReadWav("").ok());
  EXPECT_FALSE(ReadWav("RIFF\0\0\0\0WAVE").ok());  // no chunks
  EXPECT_FALSE(ReadWav("{\"error\": 1}").ok());
  std::string no_format = Wav(24000, 1, 10);
  no_format.replace(12, 4, "junk");
  EXPECT_FALSE(ReadWav(no_format).ok());
  EXPECT_FALSE(ReadWav(Wav(0, 1, 10)).ok());  // a rate of 0
}

}  // namespace
}  // namespace zest::engines
