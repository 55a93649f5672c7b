#include "tools/successor_chain.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tools/random_weights.h"
#include "tools/steering_weights.h"

namespace zest::tools {
namespace {

// The size of a normalised embedding's random part: RMS normalisation
// scales a vector of `n` dimensions to a root mean square of 1, and the
// bias dimension's 1.0 (steering_weights.h) dominates its sum of squares.
float NormalisedScale(uint64_t n, float random_squares) {
  return std::sqrt(static_cast<float>(n) / (1.0f + random_squares));
}

}  // namespace

std::vector<uint32_t> SuccessorCycle(const SyntheticVocab& vocab, uint64_t chain_seed) {
  std::vector<uint32_t> cycle;
  for (uint32_t id = 0; id < vocab.tokens.size(); ++id) {
    if (vocab.types[id] == kTokenNormal && id != vocab.word_start_id) cycle.push_back(id);
  }
  std::mt19937_64 rng(chain_seed);
  std::shuffle(cycle.begin(), cycle.end(), rng);
  return cycle;
}

uint32_t ChainSuccessor(const std::vector<uint32_t>& cycle, uint32_t token) {
  const auto it = std::find(cycle.begin(), cycle.end(), token);
  if (it == cycle.end()) return cycle[token % cycle.size()];  // into the cycle
  const auto next = std::next(it);
  return next == cycle.end() ? cycle.front() : *next;
}

// out[successor] gains a multiple of the token's own embedding (its random
// part): the dot product after the final norm is kChainLogit for that
// token, and near 0 for the others (random vectors of ~1000 dimensions are
// almost orthogonal).
void AddSuccessorChain(const SyntheticModelSpec& spec, const SyntheticVocab& vocab,
                       const std::vector<float>& embeddings, std::vector<float>& output) {
  const uint64_t n = spec.embedding;
  const std::vector<uint32_t> cycle = SuccessorCycle(vocab, spec.chain_seed);
  for (uint32_t t = 0; t < vocab.tokens.size(); ++t) {
    const float* e = embeddings.data() + uint64_t{t} * n;
    float squares = 0;
    for (uint64_t d = kSteeringDimensions; d < n; ++d) squares += e[d] * e[d];
    if (squares <= 0) continue;
    const float scale = kChainLogit / (squares * NormalisedScale(n, squares));
    float* row = output.data() + uint64_t{ChainSuccessor(cycle, t)} * n;
    for (uint64_t d = kSteeringDimensions; d < n; ++d) row[d] += scale * e[d];
  }
}

}  // namespace zest::tools
