// GGUF (v2/v3) reader: metadata key/values and tensor infos of a model file,
// bounds-checked so a truncated or hostile file is an error, never a crash.
// Only the header is read (not the tensor data). Thread-safe (pure).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/result.h"

namespace zest::models {

// A metadata value. Arrays of strings are kept (vocabularies); arrays of
// numbers keep only their length in `array_size` to bound memory.
struct GgufValue {
  std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<std::string>> value;
  uint32_t type = 0;        // the GGUF value type id
  uint64_t array_size = 0;  // element count when the value is an array
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne[0] first
  uint32_t type = 0;           // ggml type id
  uint64_t offset = 0;         // relative to the data section
  uint64_t bytes = 0;          // size of the data
};

struct GgufFile {
  uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;
  uint64_t data_offset = 0;  // where tensor data starts in the file
  uint64_t file_size = 0;

  // Typed lookups; `fallback` when absent or of another type.
  std::string GetString(const std::string& key, const std::string& fallback = "") const;
  uint64_t GetUint(const std::string& key, uint64_t fallback = 0) const;
};

Result<GgufFile> ReadGguf(const std::filesystem::path& path);

// The facts zest shows and uses, derived from a GgufFile.
struct ModelInfo {
  std::string architecture;     // "llama"
  std::string name;             // general.name
  uint64_t file_size = 0;
  uint64_t parameter_count = 0; // sum of tensor element counts
  uint64_t context_length = 0;  // <arch>.context_length
  uint64_t embedding_length = 0;
  uint64_t block_count = 0;
  uint64_t head_count = 0;
  uint64_t head_count_kv = 0;
  std::string file_type;        // "Q8_0", "F16", ... from general.file_type
  bool has_chat_template = false;
  // Embedding models: BERT-family architectures or a pooling type set.
  bool embedding = false;
};

ModelInfo Describe(const GgufFile& file);
// Name of a ggml tensor type id ("F32", "Q8_0"); "type<N>" when unknown.
std::string GgmlTypeName(uint32_t type);

}  // namespace zest::models
