#include "engines/wavtokenizer_istft.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace zest::engines {

namespace {

constexpr int kHop = 320;
constexpr float kMaxMagnitude = 100.0f;

int SmallestFactor(int n) {
  for (int p = 2; p * p <= n; ++p) {
    if (n % p == 0) return p;
  }
  return n;
}

void PutLe(std::string& s, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// The periodic Hann window (torch.hann_window's default), which the
// WavTokenizer decoder was trained with.
std::vector<float> HannWindow(int n) {
  std::vector<float> w(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    w[static_cast<size_t>(i)] =
        static_cast<float>(0.5 - 0.5 * std::cos(2 * std::numbers::pi * i / n));
  }
  return w;
}

}  // namespace

Fft::Fft(int n) : n_(n), roots_(static_cast<size_t>(n)), scratch_(static_cast<size_t>(n)) {
  for (int j = 0; j < n; ++j)
    roots_[static_cast<size_t>(j)] = std::polar(1.0, -2 * std::numbers::pi * j / n);
}

void Fft::Transform(std::vector<std::complex<float>>& data, int sign) {
  scratch_ = data;
  Recurse(scratch_.data(), 1, n_, data.data(), sign);
}

// Decimation in time: `n` points of `in` (every `stride`-th) into `out`.
// The p sub-transforms of length m = n/p land in out[r*m .. r*m+m), then
// the butterflies of radix p combine them in a small buffer.
void Fft::Recurse(const std::complex<float>* in, int stride, int n, std::complex<float>* out,
                  int sign) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int p = SmallestFactor(n);
  const int m = n / p;
  for (int r = 0; r < p; ++r) Recurse(in + r * stride, stride * p, m, out + r * m, sign);
  const int step = n_ / n;      // roots_ holds the n_-th roots; n divides n_
  std::complex<float> sums[8];  // radix 2 or 5 here; larger primes take the slow path
  std::vector<std::complex<float>> big;
  std::complex<float>* acc = sums;
  if (p > 8) {
    big.resize(static_cast<size_t>(p));
    acc = big.data();
  }
  for (int k = 0; k < m; ++k) {
    for (int q = 0; q < p; ++q) {
      std::complex<float> s = 0;
      for (int r = 0; r < p; ++r) {
        const int j = static_cast<int>((static_cast<int64_t>(r) * (k + q * m) * step) % n_);
        std::complex<double> w = roots_[static_cast<size_t>(j)];
        if (sign > 0) w = std::conj(w);
        s += out[r * m + k] * std::complex<float>(w);
      }
      acc[q] = s;
    }
    for (int q = 0; q < p; ++q) out[q * m + k] = acc[q];
  }
}

std::vector<float> WavTokenizerSamples(std::span<const float> frames) {
  const size_t n_frames = frames.size() / kWavTokenizerFrameFloats;
  if (n_frames == 0) return {};
  const int n = kWavTokenizerFft;
  const int pad = (n - kHop) / 2;  // the decoder's "same" padding: 480
  const std::vector<float> window = HannWindow(n);
  const size_t total = (n_frames - 1) * kHop + n;
  std::vector<float> audio(total, 0.0f);
  std::vector<float> envelope(total, 0.0f);
  Fft fft(n);
  std::vector<std::complex<float>> spectrum(static_cast<size_t>(n));
  for (size_t f = 0; f < n_frames; ++f) {
    const float* v = frames.data() + f * kWavTokenizerFrameFloats;
    for (int k = 0; k < kWavTokenizerBins; ++k) {
      const float magnitude = std::min(std::exp(v[k]), kMaxMagnitude);
      spectrum[static_cast<size_t>(k)] = std::polar(magnitude, v[kWavTokenizerBins + k]);
    }
    // A real signal's spectrum: X[n-k] = conj(X[k]); an inverse real FFT
    // ignores the imaginary parts of DC and Nyquist.
    spectrum[0] = spectrum[0].real();
    spectrum[n / 2] = spectrum[n / 2].real();
    for (int k = 1; k < n / 2; ++k) {
      spectrum[static_cast<size_t>(n - k)] = std::conj(spectrum[static_cast<size_t>(k)]);
    }
    fft.Transform(spectrum, +1);
    const size_t at = f * kHop;
    for (int i = 0; i < n; ++i) {
      const float w = window[static_cast<size_t>(i)];
      audio[at + i] += spectrum[static_cast<size_t>(i)].real() / n * w;
      envelope[at + i] += w * w;
    }
  }
  std::vector<float> out(n_frames * kHop);
  for (size_t i = 0; i < out.size(); ++i) {
    const float e = envelope[i + pad];
    const float s = e > 1e-11f ? audio[i + pad] / e : 0.0f;
    out[i] = std::clamp(s, -1.0f, 1.0f);
  }
  return out;
}

std::string PcmWav(std::span<const float> samples, int rate) {
  const auto data_bytes = static_cast<uint32_t>(samples.size() * 2);
  std::string s = "RIFF";
  PutLe(s, 36 + data_bytes, 4);
  s += "WAVEfmt ";
  PutLe(s, 16, 4);
  PutLe(s, 1, 2);  // PCM
  PutLe(s, 1, 2);  // mono
  PutLe(s, static_cast<uint32_t>(rate), 4);
  PutLe(s, static_cast<uint32_t>(rate) * 2, 4);
  PutLe(s, 2, 2);
  PutLe(s, 16, 2);
  s += "data";
  PutLe(s, data_bytes, 4);
  s.reserve(s.size() + data_bytes);
  for (float x : samples) {
    const auto v = static_cast<int16_t>(std::lround(std::clamp(x, -1.0f, 1.0f) * 32767.0f));
    PutLe(s, static_cast<uint16_t>(v), 2);
  }
  return s;
}

}  // namespace zest::engines
