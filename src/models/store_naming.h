// How model files in the Hugging Face store become model names. A repo holds
// one or more models: a single file, or a shard set (`x-00001-of-00003.gguf`,
// loaded through its first shard), plus optional vision projectors
// (`mmproj-*.gguf`) that belong to the repo's models rather than being
// models themselves. A model is named "org/repo:QUANT" when its label
// (taken from the file name) picks it out alone in the repo, else
// "org/repo/<path of its first file without .gguf>". Speech models are
// whisper.cpp's `ggml-<name>.bin` files, labelled by <name>
// ("ggerganov/whisper.cpp:base.en"). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/hf_store.h"

namespace zest::models {

// The quantization label in a file path, uppercased ("Qwen3-8B-Q4_K_M.gguf"
// → "Q4_K_M", "gpt-oss-20b-mxfp4.gguf" → "MXFP4"); the file name is looked
// at first, then its directories. Empty when none is found.
std::string QuantLabel(std::string_view path);

// Case-insensitive equality of two quantization labels.
bool SameQuant(std::string_view a, std::string_view b);

// A whisper.cpp model as Hugging Face repos name them: `ggml-<name>.bin`
// ("ggml-base.en.bin", "ggml-large-v3-turbo-q8_0.bin"). The file's magic is
// checked when it is read (models/whisper_file.h), not here.
bool IsSpeechModelFile(std::string_view path);
// A GGUF file or a speech model file: what the store serves.
bool IsModelFile(std::string_view path);
// The label that names a model in its repo: QuantLabel for GGUF files, the
// name between "ggml-" and ".bin" (as written) for speech models.
std::string ModelLabel(std::string_view path);

struct ShardInfo {
  int index = 0;  // 1-based
  int count = 0;
  std::string base;  // the path without "-0000i-of-0000n.gguf"
};
// nullopt when `path` is not named like a shard.
std::optional<ShardInfo> ParseShard(std::string_view path);

// True for vision projector files (file name starting with "mmproj").
bool IsMmproj(std::string_view path);

// True for a speech-out model's vocoder file (a file name containing
// "vocoder"), and for a vocoder's GGUF architecture (WavTokenizer's
// decoder): paired with a backbone, never a model of its own.
bool IsVocoder(std::string_view path);
bool IsVocoderArchitecture(std::string_view architecture);

// One model of a repo: its files (shards in order; the first is what the
// engine loads) and the name it is served under.
struct StoreModel {
  std::string name;
  std::string repo;
  std::string quant;               // uppercased label, or empty
  std::vector<StoreFile> files;    // first one is loaded
  std::vector<StoreFile> mmprojs;  // the repo's projectors (best first)
};

// Groups the files of ONE repo snapshot set into models. Files with the same
// path in several snapshots count once (the first given wins, so pass the
// preferred snapshot's files first). Incomplete shard sets are skipped.
std::vector<StoreModel> GroupStoreModels(const std::vector<StoreFile>& repo_files);

// The model name for `file` among `repo_files` (all GGUF files of its repo,
// `file` included): "org/repo:QUANT" or "org/repo/<path without .gguf>".
// For a later shard, the name of its shard set. Empty for mmproj files.
std::string StoreModelName(const StoreFile& file, const std::vector<StoreFile>& repo_files);

}  // namespace zest::models
