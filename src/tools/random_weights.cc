#include "tools/random_weights.h"

#include <cmath>

namespace zest::tools {
std::vector<float> WeightGenerator::Random(uint64_t count) {
  const float half_width = kRandomWeightStd * std::sqrt(3.0f);
  const float scale = 2.0f * half_width / 4294967296.0f;  // 2^32 steps across the range
  std::vector<float> values(count);
  for (uint64_t i = 0; i < count; i += 2) {
    const uint64_t bits = rng_();
    values[i] = static_cast<float>(bits & 0xffffffff) * scale - half_width;
    if (i + 1 < count) values[i + 1] = static_cast<float>(bits >> 32) * scale - half_width;
  }
  return values;
}

}  // namespace zest::tools
