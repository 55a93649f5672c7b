// GgufFile lookups and the ModelInfo summary.
#include <algorithm>
#include <array>
#include <string_view>

#include "models/gguf_reader.h"

namespace zest::models {
namespace {

// Architectures whose models are encoders (embeddings, rerankers), named as
// llama.cpp writes general.architecture.
constexpr std::array<std::string_view, 10> kEncoderArchitectures = {
    "bert",        "nomic-bert", "nomic-bert-moe", "jina-bert-v2",    "jina-bert-v3",
    "modern-bert", "neo-bert",   "t5encoder",      "gemma-embedding", "eurobert"};

}  // namespace

uint64_t GgufTensorInfo::ElementCount() const {
  uint64_t count = 1;
  for (uint64_t dim : dims) count *= dim;  // TensorByteSize checked it fits
  return count;
}

const GgufValue* GgufFile::Find(const std::string& key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

const GgufTensorInfo* GgufFile::FindTensor(std::string_view name) const {
  auto it = std::find_if(tensors.begin(), tensors.end(),
                         [&](const GgufTensorInfo& t) { return t.name == name; });
  return it == tensors.end() ? nullptr : &*it;
}

std::string GgufFile::GetString(const std::string& key, const std::string& fallback) const {
  const GgufValue* v = Find(key);
  const auto* s = v ? std::get_if<std::string>(&v->value) : nullptr;
  return s ? *s : fallback;
}

uint64_t GgufFile::GetUint(const std::string& key, uint64_t fallback) const {
  const GgufValue* v = Find(key);
  if (v == nullptr || v->type == kGgufArray) return fallback;
  if (const auto* u = std::get_if<uint64_t>(&v->value)) return *u;
  if (const auto* i = std::get_if<int64_t>(&v->value); i && *i >= 0) return *i;
  return fallback;
}

double GgufFile::GetFloat(const std::string& key, double fallback) const {
  const GgufValue* v = Find(key);
  if (v == nullptr || v->type == kGgufArray) return fallback;
  if (const auto* d = std::get_if<double>(&v->value)) return *d;
  if (const auto* u = std::get_if<uint64_t>(&v->value)) return static_cast<double>(*u);
  if (const auto* i = std::get_if<int64_t>(&v->value)) return static_cast<double>(*i);
  return fallback;
}

bool GgufFile::GetBool(const std::string& key, bool fallback) const {
  const GgufValue* v = Find(key);
  const auto* b = v ? std::get_if<bool>(&v->value) : nullptr;
  return b ? *b : fallback;
}

uint64_t GgufFile::GetArraySize(const std::string& key) const {
  const GgufValue* v = Find(key);
  return v != nullptr && v->type == kGgufArray ? v->array_size : 0;
}

uint64_t GgufFile::ArchUint(const std::string& suffix, uint64_t fallback) const {
  return GetUint(Architecture() + "." + suffix, fallback);
}

ModelInfo Describe(const GgufFile& file) {
  ModelInfo info;
  info.architecture = file.Architecture();
  info.name = file.GetString("general.name");
  info.file_size = file.file_size;
  for (const GgufTensorInfo& t : file.tensors) {
    info.parameter_count += t.ElementCount();
    info.tensor_bytes += t.bytes;
  }
  info.context_length = file.ArchUint("context_length");
  info.embedding_length = file.ArchUint("embedding_length");
  info.block_count = file.ArchUint("block_count");
  info.head_count = file.ArchUint("attention.head_count");
  info.head_count_kv = file.ArchUint("attention.head_count_kv", info.head_count);
  if (file.Find("general.file_type") != nullptr) {
    info.file_type = FileTypeName(file.GetUint("general.file_type"));
  }
  info.has_chat_template = !file.GetString("tokenizer.chat_template").empty();
  const bool encoder = std::find(kEncoderArchitectures.begin(), kEncoderArchitectures.end(),
                                 info.architecture) != kEncoderArchitectures.end();
  // pooling_type 0 is "none" (per-token outputs, not an embedding model).
  info.embedding = encoder || file.ArchUint("pooling_type", 0) != 0;
  info.synthetic = file.GetBool("zest.synthetic", false);
  return info;
}

}  // namespace zest::models
