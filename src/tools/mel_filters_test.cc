#include "tools/mel_filters.h"

#include <gtest/gtest.h>

namespace zest::tools {
namespace {

TEST(MelFiltersTest, WhisperGeometry) {
  const MelFilterBank bank = SlaneyMelFilterBank(80, 400, 16000);
  ASSERT_EQ(bank.bands, 80u);
  ASSERT_EQ(bank.fft_bins, 201u);
  ASSERT_EQ(bank.weights.size(), 80u * 201u);
  uint32_t previous_peak = 0;
  for (uint32_t b = 0; b < bank.bands; ++b) {
    uint32_t peak = 0;
    for (uint32_t k = 0; k < bank.fft_bins; ++k) {
      EXPECT_GE(bank.At(b, k), 0.0f);
      if (bank.At(b, k) > bank.At(b, peak)) peak = k;
    }
    // No empty band, and bands move up in frequency.
    EXPECT_GT(bank.At(b, peak), 0.0f) << "band " << b;
    EXPECT_GE(peak, previous_peak) << "band " << b;
    previous_peak = peak;
  }
  // DC belongs to no band; the top band reaches near Nyquist.
  EXPECT_EQ(bank.At(0, 0), 0.0f);
  EXPECT_GT(previous_peak, 180u);
}

TEST(MelFiltersTest, BandsAreAreaNormalised) {
  // Each triangle has area 1 over frequency (height 2 / width): summed over
  // bins 40 Hz apart, every band wide enough to span several bins gives ~1.
  const MelFilterBank bank = SlaneyMelFilterBank(80, 400, 16000);
  for (uint32_t b = 30; b < bank.bands; ++b) {
    double area = 0;
    for (uint32_t k = 0; k < bank.fft_bins; ++k) area += bank.At(b, k) * 40.0;
    EXPECT_NEAR(area, 1.0, 0.1) << "band " << b;
  }
}

}  // namespace
}  // namespace zest::tools
