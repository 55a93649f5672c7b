// A mel filter bank: triangular filters on the Slaney mel scale (linear below
// 1 kHz, logarithmic above), area-normalised, the kind whisper models ship in
// their file and apply to the power spectrum of each 25 ms frame. Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace zest::tools {

struct MelFilterBank {
  uint32_t bands = 0;          // n_mel
  uint32_t fft_bins = 0;       // n_fft / 2 + 1
  std::vector<float> weights;  // bands x fft_bins, one row per band

  float At(uint32_t band, uint32_t bin) const { return weights[band * fft_bins + bin]; }
};

// Filters from 0 Hz to sample_rate / 2 over the bins of an `fft_size`-point
// FFT. Whisper's: SlaneyMelFilterBank(80, 400, 16000) (80 x 201).
MelFilterBank SlaneyMelFilterBank(uint32_t bands, uint32_t fft_size, uint32_t sample_rate);

}  // namespace zest::tools
