// GGUF (v2/v3) reader: metadata key/values and tensor infos of a model file,
// bounds-checked so a truncated or hostile file is an error, never a crash.
// Only the header is read (not the tensor data). Thread-safe (pure).
//
// The GgufFile keeps everything placement needs to predict memory later
// (per-tensor types and sizes, all numeric metadata); ModelInfo is the short
// summary zest shows in listings.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/result.h"
#include "models/ggml_types.h"

namespace zest::models {

// GGUF metadata value type ids (the on-disk `gguf_type`).
enum GgufType : uint32_t {
  kGgufUint8 = 0,
  kGgufInt8 = 1,
  kGgufUint16 = 2,
  kGgufInt16 = 3,
  kGgufUint32 = 4,
  kGgufInt32 = 5,
  kGgufFloat32 = 6,
  kGgufBool = 7,
  kGgufString = 8,
  kGgufArray = 9,
  kGgufUint64 = 10,
  kGgufInt64 = 11,
  kGgufFloat64 = 12,
};

// A metadata value. Arrays of strings are kept (vocabularies); arrays of
// numbers keep only their length in `array_size` to bound memory.
struct GgufValue {
  std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<std::string>> value;
  uint32_t type = 0;          // the GGUF value type id
  uint64_t array_size = 0;    // element count when the value is an array
  uint32_t element_type = 0;  // the element type id when the value is an array
};

struct GgufTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne[0] first
  uint32_t type = 0;           // ggml type id
  uint64_t offset = 0;         // relative to the data section
  uint64_t bytes = 0;          // size of the data

  uint64_t ElementCount() const;
};

struct GgufFile {
  uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;
  uint32_t alignment = 32;   // general.alignment, or the default
  uint64_t data_offset = 0;  // where tensor data starts in the file
  uint64_t file_size = 0;

  // Typed lookups; `fallback` when absent or of another type. GetUint also
  // accepts non-negative signed values; GetFloat accepts any number.
  std::string GetString(const std::string& key, const std::string& fallback = "") const;
  uint64_t GetUint(const std::string& key, uint64_t fallback = 0) const;
  double GetFloat(const std::string& key, double fallback = 0) const;
  bool GetBool(const std::string& key, bool fallback = false) const;
  // Element count of an array value; 0 when absent or not an array.
  uint64_t GetArraySize(const std::string& key) const;
  // nullptr when absent.
  const GgufValue* Find(const std::string& key) const;
  const GgufTensorInfo* FindTensor(std::string_view name) const;

  // general.architecture ("llama"); per-architecture keys are prefixed by it.
  std::string Architecture() const { return GetString("general.architecture"); }
  // GetUint of "<architecture>.<suffix>", e.g. ArchUint("block_count").
  uint64_t ArchUint(const std::string& suffix, uint64_t fallback = 0) const;
};

// Hard limits that keep a hostile header from costing much memory or time,
// set far above what real models use (the largest have a few thousand
// tensors and vocabularies of a few hundred thousand entries).
inline constexpr uint64_t kMaxGgufTensors = 1 << 20;
inline constexpr uint64_t kMaxGgufKeyValues = 1 << 20;
inline constexpr uint64_t kMaxGgufStringArray = 1 << 24;
inline constexpr uint64_t kMaxGgufKeyLength = 65535;
inline constexpr uint64_t kMaxGgufStringLength = 64ull << 20;
// Memory all kept strings may take, counting std::string's own overhead.
inline constexpr uint64_t kMaxGgufStringBytes = 512ull << 20;
inline constexpr uint32_t kMaxGgufDims = 4;

Result<GgufFile> ReadGguf(const std::filesystem::path& path);
// Parses a whole GGUF file held in memory (tests; headers fetched by other
// means). Tensor extents are checked against `bytes.size()`.
Result<GgufFile> ParseGguf(std::string_view bytes);

// The facts zest shows and uses, derived from a GgufFile.
struct ModelInfo {
  std::string architecture;  // "llama"
  std::string name;          // general.name
  uint64_t file_size = 0;
  uint64_t parameter_count = 0;  // sum of tensor element counts
  uint64_t context_length = 0;   // <arch>.context_length
  uint64_t embedding_length = 0;
  uint64_t block_count = 0;
  uint64_t head_count = 0;
  uint64_t head_count_kv = 0;
  std::string file_type;  // "Q8_0", "F16", ... from general.file_type
  bool has_chat_template = false;
  // What its chat template handles (read from the template's text, as
  // Ollama does): tool definitions and calls, and a thinking section.
  bool template_tools = false;
  bool template_thinking = false;
  // Embedding models: BERT-family architectures or a pooling type set.
  bool embedding = false;
  // Rerankers: rank pooling (pooling_type 4), a score per input; also
  // `embedding` (the engine runs them in its embedding mode).
  bool reranker = false;
  // Fill-in-the-middle tokens (tokenizer.ggml.fim_{pre,suf,mid}_token_id),
  // as text; empty when the model has none.
  std::string fim_prefix;
  std::string fim_suffix;
  std::string fim_middle;
  // Written by zest-make-model (`zest.synthetic`): random weights, gibberish.
  bool synthetic = false;
  // A speech-to-text model: a whisper.cpp model file (models/whisper_file.h),
  // not a GGUF language model.
  bool speech = false;
  // An image generation model: a diffusion model in safetensors
  // (models/safetensors_file.h), not a GGUF language model.
  bool image = false;
  // A speech-out (text-to-speech) model: a GGUF backbone whose vocoder
  // (ModelEntry::vocoder) the registry paired; set there, not from the file.
  bool tts = false;
  uint64_t tensor_bytes = 0;  // sum of tensor data sizes (weights in memory)

  // The model's memory shape, what placement needs to predict weights, KV
  // cache and compute buffers (see placement/memory_ledger.h).
  uint64_t feed_forward_length = 0;  // <arch>.feed_forward_length (0 for MoE-only)
  uint64_t vocab_size = 0;           // tokenizer.ggml.tokens length, else <arch>.vocab_size
  uint64_t key_length = 0;           // per head; attention.key_length, else embedding/heads
  uint64_t value_length = 0;         // per head; attention.value_length, else key_length
  uint64_t sliding_window = 0;       // attention.sliding_window; 0 = every layer sees all
  // With a sliding window, every `swa_pattern`-th layer (the last of each
  // group) still attends to the whole context, the others only to the window:
  // llama.cpp's per-architecture pattern (gemma3: 6, gemma2 and gpt-oss: 2).
  uint32_t swa_pattern = 0;
  uint64_t expert_count = 0;  // MoE: experts per layer; 0 = dense
  // Multi-token-prediction heads (<arch>.nextn_predict_layers): what the
  // engine's MTP drafting needs.
  uint64_t mtp_layers = 0;
  uint64_t expert_used_count = 0;            // MoE: experts active per token
  std::vector<uint64_t> layer_bytes;         // tensor bytes of blk.N.*, per layer
  std::vector<uint64_t> layer_expert_bytes;  // of those, the experts' (*_exps) per layer
  uint64_t output_bytes = 0;                 // output head: output.* tensors
  uint64_t input_bytes = 0;                  // token embeddings and other non-layer tensors
  bool output_tied = false;                  // no output.weight: the head reuses token_embd.weight
  uint64_t tied_output_bytes = 0;  // that tensor's bytes when tied (copied to an offloaded head)

  // True when layer `layer` attends only to the sliding window.
  bool IsSlidingWindowLayer(uint64_t layer) const;
};

ModelInfo Describe(const GgufFile& file);
// GgmlTypeName (declared in models/ggml_types.h): name of a ggml tensor type.

}  // namespace zest::models
