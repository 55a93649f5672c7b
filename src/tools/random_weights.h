// Random weights for synthetic models: deterministic for a seed, standard
// deviation 0.02 (like a freshly initialised transformer). Not thread-safe
// (one generator per model being written).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace zest::tools {

inline constexpr float kRandomWeightStd = 0.02f;

class WeightGenerator {
 public:
  explicit WeightGenerator(uint64_t seed) : rng_(seed) {}

  // `count` values drawn uniformly (not normally: two values per 64-bit draw
  // keeps the 0.5B-parameter bench preset quick to generate).
  std::vector<float> Random(uint64_t count);

 private:
  std::mt19937_64 rng_;
};

}  // namespace zest::tools
