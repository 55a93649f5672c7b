// GgufFile lookups and the ModelInfo summary.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "models/gguf_reader.h"

namespace zest::models {
namespace {

// Architectures whose models are encoders (embeddings, rerankers), named as
// llama.cpp writes general.architecture.
constexpr std::array<std::string_view, 10> kEncoderArchitectures = {
    "bert",        "nomic-bert", "nomic-bert-moe", "jina-bert-v2",    "jina-bert-v3",
    "modern-bert", "neo-bert",   "t5encoder",      "gemma-embedding", "eurobert"};

// llama.cpp's sliding-window layer pattern per architecture (every Nth layer
// is global), used when the file does not say.
uint32_t DefaultSwaPattern(std::string_view architecture) {
  if (architecture == "gemma3" || architecture == "gemma3n") return 6;
  if (architecture == "gemma2" || architecture == "gpt-oss") return 2;
  if (architecture == "cohere2" || architecture == "llama4") return 4;
  return 0;
}

// The block index of a "blk.N.*" tensor name, or -1.
int64_t LayerOf(std::string_view name) {
  if (!name.starts_with("blk.")) return -1;
  name.remove_prefix(4);
  int64_t layer = 0;
  std::size_t digits = 0;
  while (digits < name.size() && digits < 9 && name[digits] >= '0' && name[digits] <= '9') {
    layer = layer * 10 + (name[digits++] - '0');
  }
  return digits > 0 && digits < name.size() && name[digits] == '.' ? layer : -1;
}

// Splits the tensors into per-layer, expert, output and input bytes.
void DescribeTensors(const GgufFile& file, ModelInfo& info) {
  info.layer_bytes.assign(info.block_count, 0);
  info.layer_expert_bytes.assign(info.block_count, 0);
  info.output_tied = file.FindTensor("output.weight") == nullptr;
  for (const GgufTensorInfo& t : file.tensors) {
    info.parameter_count += t.ElementCount();
    info.tensor_bytes += t.bytes;
    int64_t layer = LayerOf(t.name);
    if (layer >= 0 && static_cast<uint64_t>(layer) < info.block_count) {
      info.layer_bytes[layer] += t.bytes;
      if (t.name.find("_exps") != std::string::npos) info.layer_expert_bytes[layer] += t.bytes;
    } else if (t.name.starts_with("output")) {
      info.output_bytes += t.bytes;
    } else {
      info.input_bytes += t.bytes;
      if (info.output_tied && t.name == "token_embd.weight") info.tied_output_bytes = t.bytes;
    }
  }
}

// Head dimensions, sliding window and experts.
void DescribeAttention(const GgufFile& file, ModelInfo& info) {
  info.feed_forward_length = file.ArchUint("feed_forward_length");
  info.vocab_size = file.GetArraySize("tokenizer.ggml.tokens");
  if (info.vocab_size == 0) info.vocab_size = file.ArchUint("vocab_size");
  uint64_t head_dim = info.head_count > 0 ? info.embedding_length / info.head_count : 0;
  info.key_length = file.ArchUint("attention.key_length", head_dim);
  info.value_length = file.ArchUint("attention.value_length", info.key_length);
  info.sliding_window = file.ArchUint("attention.sliding_window");
  info.swa_pattern = static_cast<uint32_t>(
      file.ArchUint("attention.sliding_window_pattern", DefaultSwaPattern(info.architecture)));
  info.expert_count = file.ArchUint("expert_count");
  info.mtp_layers = file.ArchUint("nextn_predict_layers");
  info.expert_used_count = file.ArchUint("expert_used_count");
}

// The text of the three fill-in-the-middle tokens, when the vocabulary has
// all three.
void DescribeFillInTheMiddle(const GgufFile& file, ModelInfo& info) {
  const GgufValue* tokens = file.Find("tokenizer.ggml.tokens");
  const auto* texts = tokens ? std::get_if<std::vector<std::string>>(&tokens->value) : nullptr;
  if (texts == nullptr) return;
  std::string found[3];
  const char* keys[3] = {"tokenizer.ggml.fim_pre_token_id", "tokenizer.ggml.fim_suf_token_id",
                         "tokenizer.ggml.fim_mid_token_id"};
  for (int i = 0; i < 3; ++i) {
    if (file.Find(keys[i]) == nullptr) return;
    const uint64_t id = file.GetUint(keys[i]);
    if (id >= texts->size()) return;
    found[i] = (*texts)[id];
  }
  info.fim_prefix = found[0];
  info.fim_suffix = found[1];
  info.fim_middle = found[2];
}

}  // namespace

bool ModelInfo::IsSlidingWindowLayer(uint64_t layer) const {
  if (sliding_window == 0 || swa_pattern == 0) return false;
  return layer % swa_pattern < swa_pattern - 1;
}

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
  info.context_length = file.ArchUint("context_length");
  info.embedding_length = file.ArchUint("embedding_length");
  // Every block has tensors, so a file claiming more blocks than it has
  // tensors is malformed; the clamp keeps a hostile count from sizing the
  // per-block tables below (found by tests/fuzz/gguf_fuzzer).
  info.block_count = std::min<uint64_t>(file.ArchUint("block_count"), file.tensors.size());
  info.head_count = file.ArchUint("attention.head_count");
  info.head_count_kv = file.ArchUint("attention.head_count_kv", info.head_count);
  DescribeTensors(file, info);
  DescribeAttention(file, info);
  if (file.Find("general.file_type") != nullptr) {
    info.file_type = FileTypeName(file.GetUint("general.file_type"));
  }
  const std::string chat_template = file.GetString("tokenizer.chat_template");
  info.has_chat_template = !chat_template.empty();
  info.template_tools = chat_template.find("tools") != std::string::npos;
  info.template_thinking = chat_template.find("<think>") != std::string::npos ||
                           chat_template.find("enable_thinking") != std::string::npos;
  const bool encoder = std::find(kEncoderArchitectures.begin(), kEncoderArchitectures.end(),
                                 info.architecture) != kEncoderArchitectures.end();
  // pooling_type 0 is "none" (per-token outputs, not an embedding model).
  info.embedding = encoder || file.ArchUint("pooling_type", 0) != 0;
  constexpr uint64_t kRankPooling = 4;  // llama_pooling_type LLAMA_POOLING_TYPE_RANK
  info.reranker = file.ArchUint("pooling_type", 0) == kRankPooling;
  info.synthetic = file.GetBool("zest.synthetic", false);
  DescribeFillInTheMiddle(file, info);
  return info;
}

}  // namespace zest::models
