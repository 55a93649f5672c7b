// ggml tensor types and llama file types: names and storage geometry (block
// size in elements, bytes per block), as documented by ggml. Used by the GGUF
// reader to size tensors, and later by placement to predict weight memory.
// Pure functions over constant tables; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::models {

// Storage of one ggml type: `block_size` elements take `type_size` bytes.
struct GgmlTypeTraits {
  const char* name = nullptr;
  uint32_t block_size = 0;
  uint32_t type_size = 0;
};

// Traits of a ggml type id; nullptr for ids that are unknown or were removed
// from ggml (files using them cannot be sized, so they are rejected).
const GgmlTypeTraits* FindGgmlType(uint32_t type);

// Name of a ggml tensor type id ("F32", "Q8_0"); "type<N>" when unknown.
std::string GgmlTypeName(uint32_t type);

// Bytes of a tensor of `type` with `dims` (ne[0] first). Errors when the type
// is unknown, ne[0] is not a multiple of the block size, or the size overflows.
Result<uint64_t> TensorByteSize(uint32_t type, const std::vector<uint64_t>& dims);

// Name of a llama file type (general.file_type): 7 -> "Q8_0", 15 -> "Q4_K_M";
// "ftype<N>" when unknown.
std::string FileTypeName(uint64_t file_type);

}  // namespace zest::models
