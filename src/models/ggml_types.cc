#include "models/ggml_types.h"

#include <array>
#include <limits>

namespace zest::models {
namespace {

constexpr uint32_t kQK = 32;    // elements per block of the legacy quants
constexpr uint32_t kQKK = 256;  // elements per super-block of the K and IQ quants

// Indexed by ggml type id. Ids 4, 5 (Q4_2, Q4_3) and 31..33 (Q4_0_4_4 and
// friends) were removed from ggml and stay empty.
constexpr std::array<GgmlTypeTraits, 40> kTypes = [] {
  std::array<GgmlTypeTraits, 40> t{};
  t[0] = {"F32", 1, 4};
  t[1] = {"F16", 1, 2};
  t[2] = {"Q4_0", kQK, 2 + kQK / 2};
  t[3] = {"Q4_1", kQK, 4 + kQK / 2};
  t[6] = {"Q5_0", kQK, 2 + 4 + kQK / 2};
  t[7] = {"Q5_1", kQK, 4 + 4 + kQK / 2};
  t[8] = {"Q8_0", kQK, 2 + kQK};
  t[9] = {"Q8_1", kQK, 4 + kQK};
  t[10] = {"Q2_K", kQKK, kQKK / 16 + kQKK / 4 + 4};
  t[11] = {"Q3_K", kQKK, kQKK / 8 + kQKK / 4 + 12 + 2};
  t[12] = {"Q4_K", kQKK, 4 + 12 + kQKK / 2};
  t[13] = {"Q5_K", kQKK, 4 + 12 + kQKK / 8 + kQKK / 2};
  t[14] = {"Q6_K", kQKK, kQKK / 2 + kQKK / 4 + kQKK / 16 + 2};
  t[15] = {"Q8_K", kQKK, 4 + kQKK + kQKK / 16 * 2};
  t[16] = {"IQ2_XXS", kQKK, 2 + kQKK / 4};
  t[17] = {"IQ2_XS", kQKK, 2 + kQKK / 4 + kQKK / 32};
  t[18] = {"IQ3_XXS", kQKK, 2 + 3 * kQKK / 8};
  t[19] = {"IQ1_S", kQKK, 2 + kQKK / 8 + kQKK / 16};
  t[20] = {"IQ4_NL", kQK, 2 + kQK / 2};
  t[21] = {"IQ3_S", kQKK, 2 + kQKK / 4 + kQKK / 32 + kQKK / 8 + kQKK / 64};
  t[22] = {"IQ2_S", kQKK, 2 + kQKK / 4 + kQKK / 32 + kQKK / 32};
  t[23] = {"IQ4_XS", kQKK, 2 + 2 + kQKK / 64 + kQKK / 2};
  t[24] = {"I8", 1, 1};
  t[25] = {"I16", 1, 2};
  t[26] = {"I32", 1, 4};
  t[27] = {"I64", 1, 8};
  t[28] = {"F64", 1, 8};
  t[29] = {"IQ1_M", kQKK, kQKK / 8 + kQKK / 16 + kQKK / 32};
  t[30] = {"BF16", 1, 2};
  t[34] = {"TQ1_0", kQKK, (kQKK - 4 * kQKK / 64) / 5 + kQKK / 64 + 2};
  t[35] = {"TQ2_0", kQKK, kQKK / 4 + 2};
  t[39] = {"MXFP4", kQK, 1 + kQK / 2};
  return t;
}();

// llama_ftype values (general.file_type). Gaps are retired values.
constexpr std::array<const char*, 39> kFileTypes = {
    "F32",    "F16",    "Q4_0",  "Q4_1",    "Q4_1_SOME_F16", nullptr,  nullptr,    "Q8_0",
    "Q5_0",   "Q5_1",   "Q2_K",  "Q3_K_S",  "Q3_K_M",        "Q3_K_L", "Q4_K_S",   "Q4_K_M",
    "Q5_K_S", "Q5_K_M", "Q6_K",  "IQ2_XXS", "IQ2_XS",        "Q2_K_S", "IQ3_XS",   "IQ3_XXS",
    "IQ1_S",  "IQ4_NL", "IQ3_S", "IQ3_M",   "IQ2_S",         "IQ2_M",  "IQ4_XS",   "IQ1_M",
    "BF16",   nullptr,  nullptr, nullptr,   "TQ1_0",         "TQ2_0",  "MXFP4_MOE"};

}  // namespace

const GgmlTypeTraits* FindGgmlType(uint32_t type) {
  if (type >= kTypes.size() || kTypes[type].name == nullptr) return nullptr;
  return &kTypes[type];
}

std::string GgmlTypeName(uint32_t type) {
  const GgmlTypeTraits* traits = FindGgmlType(type);
  return traits ? traits->name : "type" + std::to_string(type);
}

Result<uint64_t> TensorByteSize(uint32_t type, const std::vector<uint64_t>& dims) {
  const GgmlTypeTraits* traits = FindGgmlType(type);
  if (traits == nullptr) return InvalidArgument("unknown ggml type " + std::to_string(type));
  if (dims.empty()) return InvalidArgument("tensor without dimensions");
  if (dims[0] % traits->block_size != 0) {
    return InvalidArgument("ne[0]=" + std::to_string(dims[0]) + " is not a multiple of the " +
                           traits->name + " block size " + std::to_string(traits->block_size));
  }
  // Rows of ne[0] elements, then the product of the other dimensions; every
  // step is checked so a hostile file cannot wrap the size around.
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t bytes = dims[0] / traits->block_size;
  if (bytes != 0 && traits->type_size > kMax / bytes)
    return InvalidArgument("tensor size overflows");
  bytes *= traits->type_size;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] != 0 && bytes > kMax / dims[i]) return InvalidArgument("tensor size overflows");
    bytes *= dims[i];
  }
  return bytes;
}

std::string FileTypeName(uint64_t file_type) {
  if (file_type < kFileTypes.size() && kFileTypes[file_type] != nullptr) {
    return kFileTypes[file_type];
  }
  return "ftype" + std::to_string(file_type);
}

}  // namespace zest::models
