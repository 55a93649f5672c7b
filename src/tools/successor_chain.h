// A designed next-token preference laid over a synthetic model's random
// weights: the model's word pieces in one cycle, shuffled by a seed, and
// every token prefers the next piece of the cycle (any token outside the
// cycle leads into it). The preference is strong (kChainLogit over the
// rest), so greedy decoding follows the cycle whatever the layers add.
//
// Why: speculative decoding needs a target and a draft that agree. Two
// models with the same embeddings and the same chain seed agree on almost
// every token however many layers each has; a draft with another chain seed
// agrees only by chance (about one token in the vocabulary's size). The
// cycle is long (some 250 pieces), so an answer does not repeat itself until
// it passes that length.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/synthetic_model.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {

// The logit a token's successor gets above the others (which stay within
// about one logit of 0): certain under any sampling llama-server offers.
inline constexpr float kChainLogit = 24.0f;

// The cycle for `chain_seed`: the word-piece token ids in the order the
// chain visits them.
std::vector<uint32_t> SuccessorCycle(const SyntheticVocab& vocab, uint64_t chain_seed);

// The token that follows `token` under the chain.
uint32_t ChainSuccessor(const std::vector<uint32_t>& cycle, uint32_t token);

// Adds the chain to `output` (GGUF layout, one row of `spec.embedding` per
// token), reading each token's embedding from `embeddings` (the final,
// steered ones; their first kSteeringDimensions are left alone).
void AddSuccessorChain(const SyntheticModelSpec& spec, const SyntheticVocab& vocab,
                       const std::vector<float>& embeddings, std::vector<float>& output);

}  // namespace zest::tools
