// A synthetic llama-architecture model with random weights: loads and runs in
// a real llama-server, and produces gibberish; or, with `quote_brace` or
// `file_reader`, with designed weights that write only a few chosen tokens. For tests, the demo
// and benchmarks only; real models come from `zest pull`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/result.h"
#include "tools/gguf_writer.h"

namespace zest::tools {

// llama's attention.layer_norm_rms_epsilon, written into every synthetic model.
inline constexpr float kRmsNormEpsilon = 1e-5f;

struct SyntheticModelSpec {
  std::string name = "zest-synthetic";
  uint32_t layers = 2;
  uint32_t embedding = 64;  // multiple of heads; multiple of 32 for Q8_0
  uint32_t heads = 4;
  uint32_t kv_heads = 2;
  uint32_t feed_forward = 128;
  uint32_t context = 2048;
  TensorType type = TensorType::kF32;
  uint64_t seed = 1;
  // An embedding model: written with a mean pooling type so llama-server
  // serves /v1/embeddings with --embeddings.
  bool embedding_model = false;
  // A reranker: a qwen3-architecture model (llama's, with per-head q/k
  // norms) with rank pooling and a one-score classifier head, and a rerank
  // prompt template, so llama-server serves /v1/rerank with --reranking.
  bool reranker = false;
  // A synthetic model with a designed token preference instead of random
  // weights (tools/quote_brace_weights.h): it writes `"}`, or under a JSON
  // object grammar `{"}":"}"}`. At least kSteeringDimensions wide, as every
  // model that generates.
  bool quote_brace = false;
  // Designed weights that call a coding agent's read tool on /scratch/a.txt
  // when tools are offered and answer in text once the call is answered
  // (tools/file_reader_weights.h), on a vocabulary with the call's pieces
  // added.
  bool file_reader = false;
  // A successor chain over the random weights (tools/successor_chain.h):
  // greedy decoding follows a fixed cycle of word pieces, chosen by
  // `chain_seed`. What makes a target and its draft agree.
  bool successor_chain = false;
  uint64_t chain_seed = 1;

  // Whether the model writes text (not an embedding model or a reranker).
  bool generates() const { return !embedding_model && !reranker; }
};

// Named presets: "tiny" (tests; a few MB), "tiny-embed", "tiny-rerank",
// "tiny-quote-brace" (tiny's shape, designed weights), "tiny-file-reader"
// (one narrow layer, designed weights), "small" (the `make run` demo),
// "bench" (~0.5B parameters, Q8_0: realistic CPU speeds), "bench-85m" (~85M
// parameters, Q8_0: the gateway-overhead benchmark's). kNotFound if unknown.
Result<SyntheticModelSpec> PresetSpec(const std::string& preset);

// A draft model for `target` (speculative decoding): the same vocabulary,
// width and embeddings (the same seed), `layers` blocks, and both with a
// successor chain, so the two agree on almost every token; with `chance`,
// the draft's chain has another seed and agrees only by chance. Sets
// `target`'s chain too.
SyntheticModelSpec DraftSpecFor(SyntheticModelSpec& target, uint32_t layers, bool chance);

Status WriteSyntheticModel(const SyntheticModelSpec& spec, const std::filesystem::path& path);

}  // namespace zest::tools
