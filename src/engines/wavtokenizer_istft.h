// The last step of WavTokenizer's decoder, which llama.cpp's vocoder model
// leaves to its caller: each code's vector of 1282 floats holds 641 log
// magnitudes and 641 phases of one STFT frame (n_fft 1280); an inverse real
// FFT per frame, a Hann window and overlap-add at hop 320 make 320 samples
// a code, 24 kHz mono. Pure functions; the FFT is a mixed-radix one for
// 1280 = 2^8 * 5 (a direct DFT costs 40 times more: 1280 x 641 products a
// frame).
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zest::engines {

inline constexpr int kWavTokenizerFft = 1280;
inline constexpr int kWavTokenizerBins = kWavTokenizerFft / 2 + 1;      // 641
inline constexpr int kWavTokenizerFrameFloats = 2 * kWavTokenizerBins;  // 1282

// An in-place complex FFT of any length whose prime factors are small
// (sign -1: forward, +1: inverse, unscaled). Tables are built once per
// length; not thread-safe to share one object between threads.
class Fft {
 public:
  explicit Fft(int n);
  int size() const { return n_; }
  void Transform(std::vector<std::complex<float>>& data, int sign);

 private:
  void Recurse(const std::complex<float>* in, int stride, int n, std::complex<float>* out,
               int sign);
  int n_;
  std::vector<std::complex<double>> roots_;  // exp(-2 pi i j / n)
  std::vector<std::complex<float>> scratch_;
};

// The samples for `frames` (frames.size() a multiple of 1282, one frame a
// code): n_codes * 320 samples in [-1, 1] (clipped). Magnitudes are
// exp(log magnitude) capped at 100 as WavTokenizer does.
std::vector<float> WavTokenizerSamples(std::span<const float> frames);

// A 16-bit PCM mono WAV of `samples` (clipped to [-1, 1]) at `rate` Hz.
std::string PcmWav(std::span<const float> samples, int rate);

}  // namespace zest::engines
