// Catalog: zest's curated list of models (a JSON file in the repo, embedded
// into the binary at build time): where each lives on the Hugging Face hub,
// which file or quantization to take, what it is good for and which engine
// recipe runs it. `zest pull NAME` and `zest list` read it.
// Immutable after loading; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::models {

struct CatalogEntry {
  std::string name;                 // "Qwen3-0.6B-GGUF", what users type
  std::string repo;                 // "unsloth/Qwen3-0.6B-GGUF"
  std::string quant;                // "Q4_K_M" (a quantization label), or empty
  std::string file;                 // an exact file path in the repo, or empty
  std::string mmproj;               // vision projector file, or empty
  std::string draft;                // catalog name of a draft model, or empty
  std::vector<std::string> labels;  // chat, reasoning, coding, vision, tool-calling,
                                    // embeddings, reranking, transcription
  std::string recipe;               // llamacpp, whispercpp, flm, ryzenai
  // The same model built for FastFlowLM (its tag, "llama3.2:1b"), or empty:
  // placement may run it on the NPU instead (placement/npu.h).
  std::string flm;
  uint64_t size_bytes = 0;  // approximate download size
  uint32_t suggested_ctx = 0;
  std::string description;

  // Whether the entry's files are a model zest serves from the store (a
  // GGUF or whisper.cpp model), as opposed to files an NPU runtime reads.
  bool ServedFromStore() const { return recipe == "llamacpp" || recipe == "whispercpp"; }
};

class Catalog {
 public:
  // The catalog compiled into zest.
  static const Catalog& Builtin();
  // kInvalidArgument naming the entry and field for malformed JSON.
  static Result<Catalog> Parse(std::string_view json);

  // Case-insensitive lookup by name; nullptr when absent.
  const CatalogEntry* Find(std::string_view name) const;
  const std::vector<CatalogEntry>& entries() const { return entries_; }

 private:
  std::vector<CatalogEntry> entries_;
};

}  // namespace zest::models
