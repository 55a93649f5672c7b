// Test helper: GGUF headers of real model architectures (llama-3 8B,
// Qwen3-30B-A3B, gpt-oss-120b, gemma-3 12B) written as SPARSE files: the
// tensor shapes and types are the real ones (the tensors that matter for
// memory; small biases and per-head norms left out), the data is a hole, so
// a 64 GB model costs a few KB of disk and milliseconds to write.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "models/gguf_reader.h"

namespace zest::placement::testing {

// Names below follow the models' and ggml's own spellings (Llama3_8B, Q8_0).
// NOLINTBEGIN(readability-identifier-naming)

// ggml type ids used below.
inline constexpr uint32_t kF32 = 0, kF16 = 1, kQ8_0 = 8, kMxfp4 = 39;

struct ArchSpec {
  std::string name;
  std::string architecture;
  uint64_t layers = 0;
  uint64_t embedding = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  uint64_t feed_forward = 0;  // dense blocks
  uint64_t vocab = 0;
  uint64_t context = 0;
  uint64_t experts = 0;  // MoE blocks when > 0
  uint64_t experts_used = 0;
  uint64_t expert_feed_forward = 0;
  uint64_t sliding_window = 0;
  uint32_t weight_type = kQ8_0;  // attention and dense FFN
  uint32_t expert_type = kQ8_0;
  uint32_t embedding_type = kQ8_0;  // token_embd and output
  bool tied_output = false;
};

ArchSpec Llama3_8B();      // 32 dense blocks, GQA 32/8, vocab 128256, all Q8_0
ArchSpec Qwen3_30B_A3B();  // 48 MoE blocks, 128 experts (8 used), all Q8_0
ArchSpec GptOss120B();     // 36 MoE blocks, MXFP4 experts, F16 attention, window 128
ArchSpec Gemma3_12B();     // 48 dense blocks, window 1024 (5 of 6 blocks), tied output

// Writes `spec` as a sparse GGUF file in a temporary directory, reads it
// back with the real reader, and removes it.
models::ModelInfo WriteSparseModel(const ArchSpec& spec);
// Llama3_8B() written and read once per test binary (shared by the tests
// that need one ordinary dense model).
const models::ModelInfo& SparseLlama3_8B();
// NOLINTEND(readability-identifier-naming)
// Writes `spec` as a sparse GGUF file in `dir` and returns its path (for
// tests that need the file itself).
std::filesystem::path WriteSparseModelFile(const ArchSpec& spec, const std::filesystem::path& dir);

}  // namespace zest::placement::testing
