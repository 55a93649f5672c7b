#include "tools/mel_filters.h"

#include <algorithm>
#include <cmath>

namespace zest::tools {
namespace {

// The Slaney scale: 200/3 Hz per mel up to 1 kHz (15 mel), then 27 mel per
// factor 6.4 in frequency.
constexpr double kLinearHzPerMel = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kLinearHzPerMel;
const double kMelsPerLogHz = 27.0 / std::log(6.4);

double HzToMel(double hz) {
  if (hz < kLogStartHz) return hz / kLinearHzPerMel;
  return kLogStartMel + std::log(hz / kLogStartHz) * kMelsPerLogHz;
}

double MelToHz(double mel) {
  if (mel < kLogStartMel) return mel * kLinearHzPerMel;
  return kLogStartHz * std::exp((mel - kLogStartMel) / kMelsPerLogHz);
}

}  // namespace

MelFilterBank SlaneyMelFilterBank(uint32_t bands, uint32_t fft_size, uint32_t sample_rate) {
  MelFilterBank bank{.bands = bands, .fft_bins = fft_size / 2 + 1, .weights = {}};
  bank.weights.assign(static_cast<size_t>(bank.bands) * bank.fft_bins, 0.0f);
  // bands + 2 edges equally spaced in mel: band b rises from edge b to its
  // peak at edge b+1 and falls to zero at edge b+2.
  const double top_mel = HzToMel(sample_rate / 2.0);
  std::vector<double> edges(bands + 2);
  for (uint32_t i = 0; i < edges.size(); ++i) edges[i] = MelToHz(top_mel * i / (bands + 1));
  for (uint32_t b = 0; b < bands; ++b) {
    const double lower = edges[b], peak = edges[b + 1], upper = edges[b + 2];
    // Area normalisation: every band passes the same energy of white noise.
    const double norm = 2.0 / (upper - lower);
    for (uint32_t k = 0; k < bank.fft_bins; ++k) {
      const double hz = static_cast<double>(k) * sample_rate / fft_size;
      const double rise = (hz - lower) / (peak - lower);
      const double fall = (upper - hz) / (upper - peak);
      const double w = std::max(0.0, std::min(rise, fall));
      bank.weights[static_cast<size_t>(b) * bank.fft_bins + k] = static_cast<float>(w * norm);
    }
  }
  return bank;
}

}  // namespace zest::tools
