#include "engines/wavtokenizer_istft.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>

#include "engines/wav_header.h"

namespace zest::engines {
namespace {

std::vector<std::complex<float>> Dft(const std::vector<std::complex<float>>& x, int sign) {
  const size_t n = x.size();
  std::vector<std::complex<float>> out(n);
  for (size_t k = 0; k < n; ++k) {
    std::complex<double> s = 0;
    for (size_t j = 0; j < n; ++j) {
      s += std::complex<double>(x[j]) *
           std::polar(1.0, sign * 2 * std::numbers::pi * static_cast<double>(j * k % n) /
                               static_cast<double>(n));
    }
    out[k] = std::complex<float>(s);
  }
  return out;
}

TEST(Fft, MatchesTheDirectTransform) {
  for (int n : {1, 2, 5, 12, 1280}) {
    std::vector<std::complex<float>> x(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      x[static_cast<size_t>(i)] = {std::sin(i * 0.7f), std::cos(i * 1.3f)};
    for (int sign : {-1, +1}) {
      std::vector<std::complex<float>> y = x;
      Fft(n).Transform(y, sign);
      const std::vector<std::complex<float>> want = Dft(x, sign);
      for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(std::abs(y[static_cast<size_t>(i)] - want[static_cast<size_t>(i)]), 0, 1e-3 * n)
            << "n=" << n << " i=" << i;
      }
    }
  }
}

// Frames from a forward STFT (Hann, n_fft 1280, hop 320, the decoder's
// "same" padding of 480) of `x`, as log magnitudes and phases.
std::vector<float> Analyse(const std::vector<float>& x, size_t n_frames) {
  const int n = kWavTokenizerFft;
  Fft fft(n);
  std::vector<float> frames;
  for (size_t f = 0; f < n_frames; ++f) {
    std::vector<std::complex<float>> buf(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int64_t at = static_cast<int64_t>(f) * 320 - 480 + i;
      const float w = static_cast<float>(0.5 - 0.5 * std::cos(2 * std::numbers::pi * i / n));
      buf[static_cast<size_t>(i)] =
          at >= 0 && at < static_cast<int64_t>(x.size()) ? x[static_cast<size_t>(at)] * w : 0;
    }
    fft.Transform(buf, -1);
    for (int k = 0; k < kWavTokenizerBins; ++k) {
      frames.push_back(std::log(std::max(std::abs(buf[static_cast<size_t>(k)]), 1e-12f)));
    }
    for (int k = 0; k < kWavTokenizerBins; ++k)
      frames.push_back(std::arg(buf[static_cast<size_t>(k)]));
  }
  return frames;
}

TEST(WavTokenizerSamples, InvertsTheForwardStft) {
  const size_t n_frames = 20;
  std::vector<float> x(n_frames * 320);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.1f * std::sin(2 * std::numbers::pi_v<float> * 440 * i / 24000) +
           0.05f * std::sin(2 * std::numbers::pi_v<float> * 1234 * i / 24000);
  }
  const std::vector<float> y = WavTokenizerSamples(Analyse(x, n_frames));
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], x[i], 1e-3) << i;
}

TEST(WavTokenizerSamples, ThreeHundredTwentySamplesACodeAndNoneForNone) {
  EXPECT_TRUE(WavTokenizerSamples({}).empty());
  std::vector<float> frames(3 * kWavTokenizerFrameFloats, 0.5f);  // exp(0.5) each bin
  const std::vector<float> y = WavTokenizerSamples(frames);
  EXPECT_EQ(y.size(), 960u);
  for (float s : y) EXPECT_LE(std::abs(s), 1.0f);
}

// Cost per second of audio (75 frames): printed, and far below real time.
TEST(WavTokenizerSamples, FastEnough) {
  std::vector<float> frames(750 * kWavTokenizerFrameFloats);
  for (size_t i = 0; i < frames.size(); ++i) frames[i] = std::sin(static_cast<float>(i)) * 2;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<float> y = WavTokenizerSamples(frames);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("iSTFT: %.4f s for 10 s of audio\n", s);
  EXPECT_EQ(y.size(), 240000u);
  EXPECT_LT(s, 5.0);
}

TEST(PcmWav, ReadsBackAsMono16Bit) {
  const std::vector<float> samples = {0.0f, 1.0f, -1.0f, 2.0f};
  Result<SpeechAudio> audio = ReadWav(PcmWav(samples, 24000));
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->sample_rate, 24000u);
  EXPECT_EQ(audio->channels, 1);
  EXPECT_EQ(audio->bits_per_sample, 16);
  EXPECT_EQ(audio->data_size, 8u);
  const std::string_view pcm = WavSamples(*audio);
  EXPECT_EQ(static_cast<unsigned char>(pcm[2]), 0xFF);  // 32767 little-endian
  EXPECT_EQ(static_cast<unsigned char>(pcm[3]), 0x7F);
  EXPECT_EQ(pcm.substr(6, 2), pcm.substr(2, 2));  // clipped
}

}  // namespace
}  // namespace zest::engines
