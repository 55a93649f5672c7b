// The audio converter with the real ffmpeg (`make test` installs it) in the
// real sandbox: audio in, 16 kHz mono WAV out; what is not audio is refused;
// audio over the length limit is refused, by its header or while decoding;
// nothing is left behind.
#include "engines/audio_converter.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "config/settings.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

using testing::TempDir;

// `seconds` of a 440 Hz tone as 8 kHz stereo 16-bit WAV: not what whisper
// reads, so ffmpeg must resample and mix it down.
std::string ToneWav(double seconds) {
  constexpr uint32_t kRate = 8000;
  constexpr uint16_t kChannels = 2;
  const auto frames = static_cast<uint32_t>(seconds * kRate);
  std::string data;
  for (uint32_t i = 0; i < frames; ++i) {
    const auto v = static_cast<int16_t>(8000 * std::sin(2 * M_PI * 440 * i / kRate));
    for (int c = 0; c < kChannels; ++c) data.append(reinterpret_cast<const char*>(&v), 2);
  }
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [](uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); };
  const auto data_size = static_cast<uint32_t>(data.size());
  return "RIFF" + u32(36 + data_size) + "WAVEfmt " + u32(16) + u16(1) + u16(kChannels) +
         u32(kRate) + u32(kRate * kChannels * 2) + u16(kChannels * 2) + u16(16) + "data" +
         u32(data_size) + data;
}

// ffmpeg (and ffprobe, unless `probe` is false) as discovery finds them:
// on PATH, sandboxed.
std::shared_ptr<const Ffmpeg> Installed(const std::filesystem::path& work_root, bool probe = true) {
  LocateOptions options;
  options.binary_name = "ffmpeg";
  options.path_env = config::ProcessEnv("PATH").value_or("");
  FfmpegSetup setup;
  setup.ffmpeg = LocateEngine(options);
  if (probe) {
    options.binary_name = "ffprobe";
    setup.ffprobe = LocateEngine(options);
  }
  setup.work_root = work_root;
  return std::make_shared<const Ffmpeg>(std::move(setup));
}

TEST(AudioConverterTest, MakesSixteenKilohertzMonoWav) {
  TempDir work;
  AudioConverter converter(Installed(work.path()));
  ASSERT_TRUE(converter.Available().ok()) << converter.Available().message();
  Result<std::string> wav = converter.ConvertBlocking(ToneWav(1.5));
  ASSERT_TRUE(wav.ok()) << wav.status().message();
  ASSERT_GT(wav->size(), 44u);
  EXPECT_EQ(wav->substr(0, 4), "RIFF");
  EXPECT_EQ(wav->substr(8, 4), "WAVE");
  uint16_t channels = 0;
  uint32_t rate = 0;
  std::memcpy(&channels, wav->data() + 22, 2);
  std::memcpy(&rate, wav->data() + 24, 4);
  EXPECT_EQ(channels, 1);
  EXPECT_EQ(rate, 16000u);
  // 1.5 s of 16-bit samples, give or take the header's extra chunks.
  EXPECT_NEAR(static_cast<double>(wav->size()), 1.5 * 16000 * 2, 200);
  EXPECT_TRUE(std::filesystem::is_empty(work.path())) << "its directory is gone";
}

TEST(AudioConverterTest, WhatIsNotAudioIsRefusedAndNothingIsLeft) {
  TempDir work;
  AudioConverter converter(Installed(work.path()));
  Result<std::string> wav = converter.ConvertBlocking("this is not audio at all");
  EXPECT_EQ(wav.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(wav.status().message().find("not audio zest can read"), std::string::npos)
      << wav.status().message();
  // ffmpeg's own error names the host's paths: it goes to the log only.
  EXPECT_EQ(wav.status().message().find(work.path().string()), std::string::npos)
      << wav.status().message();
  EXPECT_EQ(wav.status().message().find("Invalid data"), std::string::npos)
      << wav.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(work.path()));
}

TEST(AudioConverterTest, AudioOverTheLimitIsRefused) {
  TempDir work;
  AudioConverter converter(Installed(work.path()), /*max_seconds=*/1);
  Result<std::string> wav = converter.ConvertBlocking(ToneWav(1.5));
  EXPECT_EQ(wav.status().code(), ErrorCode::kTooLarge) << wav.status().message();
  EXPECT_NE(wav.status().message().find("the audio is too long: at most 1 s (limits.max_audio_s)"),
            std::string::npos)
      << wav.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(work.path()));
}

// The length is read from the file (ffprobe) before anything is decoded,
// and the refusal says so; without ffprobe the decoding's own cap refuses.
TEST(AudioConverterTest, TheLengthIsCheckedBeforeDecoding) {
  TempDir work;
  const std::string three_seconds = ToneWav(3);
  AudioConverter probing(Installed(work.path()), /*max_seconds=*/1);
  Status probed = probing.ConvertBlocking(three_seconds).status();
  EXPECT_EQ(probed.code(), ErrorCode::kTooLarge);
  EXPECT_NE(probed.message().find("it lasts 3 s by its header"), std::string::npos)
      << probed.message();
  AudioConverter decoding(Installed(work.path(), /*probe=*/false), /*max_seconds=*/1);
  Status decoded = decoding.ConvertBlocking(three_seconds).status();
  EXPECT_EQ(decoded.code(), ErrorCode::kTooLarge);
  EXPECT_NE(decoded.message().find("it decodes to more"), std::string::npos) << decoded.message();
  EXPECT_TRUE(std::filesystem::is_empty(work.path()));
}

// Whatever the header says, decoding stops a second past the limit, and
// what went past it is refused: here there is no ffprobe to read the
// header, as with a container whose header does not say.
TEST(AudioConverterTest, DecodingStopsPastTheLimitWhateverTheHeaderSays) {
  TempDir work;
  AudioConverter converter(Installed(work.path(), /*probe=*/false), /*max_seconds=*/1);
  Result<std::string> wav = converter.ConvertBlocking(ToneWav(3));
  EXPECT_EQ(wav.status().code(), ErrorCode::kTooLarge) << wav.status().message();
  EXPECT_TRUE(std::filesystem::is_empty(work.path()));
}

// A WAV with the given format chunk fields and `data` bytes of samples,
// its data chunk declaring `declared` bytes (default: all of them).
std::string Wav(uint16_t tag, uint16_t channels, uint32_t rate, uint16_t bits, size_t data,
                int64_t declared = -1) {
  auto u32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [](uint16_t v) { return std::string(reinterpret_cast<const char*>(&v), 2); };
  const uint16_t align = channels * bits / 8;
  const auto size = static_cast<uint32_t>(declared < 0 ? data : declared);
  return "RIFF" + u32(36 + size) + "WAVEfmt " + u32(16) + u16(tag) + u16(channels) + u32(rate) +
         u32(rate * align) + u16(align) + u16(bits) + "data" + u32(size) + std::string(data, '\0');
}

// Issue 52, 2: what zest measures by size alone is the one format whose
// size says its length whatever reads it; the bytes count, not the header.
TEST(AudioConverterTest, APlainWavIsMeasuredByItsBytes) {
  EXPECT_DOUBLE_EQ(PlainWavSeconds(Wav(1, 1, 16000, 16, 3 * 32000)).value_or(-1), 3.0);
  EXPECT_DOUBLE_EQ(
      PlainWavSeconds(Wav(1, 1, 16000, 16, 3 * 32000, /*declared=*/32000)).value_or(-1), 3.0)
      << "a data chunk that understates its size";
  EXPECT_FALSE(PlainWavSeconds(Wav(1, 2, 8000, 16, 32000))) << "stereo, 8 kHz";
  EXPECT_FALSE(PlainWavSeconds(Wav(2, 1, 16000, 16, 32000))) << "ADPCM";
  EXPECT_FALSE(PlainWavSeconds(Wav(1, 1, 16000, 8, 32000))) << "8-bit";
  EXPECT_FALSE(PlainWavSeconds(ToneWav(0.5)));
  const std::string plain = Wav(1, 1, 16000, 16, 32000);
  std::string two_formats = plain;
  two_formats.insert(12, plain.substr(12, 24));  // a second "fmt " chunk
  EXPECT_FALSE(PlainWavSeconds(two_formats));
  EXPECT_FALSE(PlainWavSeconds("fLaC\0\0\0\x22"));
  EXPECT_FALSE(PlainWavSeconds(""));
}

TEST(AudioConverterTest, BoundedMeasuresEveryFormat) {
  TempDir work;
  AudioConverter converter(Installed(work.path()), /*max_seconds=*/2);
  auto run = [&](std::string audio) {
    boost::asio::io_context io;
    auto done =
        boost::asio::co_spawn(io, converter.Bounded(std::move(audio)), boost::asio::use_future);
    io.run();
    return done.get();
  };
  EXPECT_EQ(run(Wav(1, 1, 16000, 16, 3 * 32000)).status().code(), ErrorCode::kTooLarge);
  const std::string short_plain = Wav(1, 1, 16000, 16, 32000);
  Result<std::string> same = run(short_plain);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(*same, short_plain) << "a plain WAV goes on as it came";
  EXPECT_EQ(run(ToneWav(3)).status().code(), ErrorCode::kTooLarge)
      << "not plain: ffmpeg measures it";
  Result<std::string> converted = run(ToneWav(1));
  ASSERT_TRUE(converted.ok()) << converted.status().message();
  EXPECT_TRUE(PlainWavSeconds(*converted)) << "what ffmpeg writes is a plain WAV";
}

TEST(AudioConverterTest, WithoutFfmpegItSaysHowToGetIt) {
  AudioConverter converter(std::make_shared<const Ffmpeg>(FfmpegSetup{}));
  EXPECT_EQ(converter.Available().code(), ErrorCode::kNotFound);
  EXPECT_NE(converter.Describe().find("apt install ffmpeg"), std::string::npos);
  EXPECT_EQ(converter.ConvertBlocking(ToneWav(0.1)).status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace zest::engines
