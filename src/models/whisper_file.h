// Reader of whisper.cpp's model files: the legacy ggml format (`ggml-*.bin`),
// which whisper-server loads (it does not read GGUF). Bounds-checked like the
// GGUF reader, so a truncated or hostile file is an error, never a crash;
// tensor data is skipped, not read. Thread-safe (pure).
//
// Layout (host order; every real file is little endian; i32 unless noted):
//   u32 magic 0x67676d6c ("ggml"),
//   hparams: n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
//            n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype,
//   mel filters: n_mel, n_fft, n_mel*n_fft f32 (row per mel band),
//   vocabulary: count, count x {u32 length, bytes} (only the ordinary tokens:
//            whisper.cpp derives the special tokens from hparams.n_vocab),
//   tensors until the end: {n_dims, name length, ggml type, ne[n_dims]
//            (ne[0] first), name, data}, without padding.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::models {

inline constexpr uint32_t kGgmlFileMagic = 0x67676d6c;

// The hyperparameters in the order the file holds them. `ftype` is the raw
// value: a ggml_ftype (0 F32, 1 F16, 7 Q8_0...) plus 1000 x the quantization
// version for quantized files (whisper-quantize writes 2007 for Q8_0).
struct WhisperHparams {
  int32_t n_vocab = 0;
  int32_t n_audio_ctx = 0;
  int32_t n_audio_state = 0;
  int32_t n_audio_head = 0;
  int32_t n_audio_layer = 0;
  int32_t n_text_ctx = 0;
  int32_t n_text_state = 0;
  int32_t n_text_head = 0;
  int32_t n_text_layer = 0;
  int32_t n_mels = 0;
  int32_t ftype = 0;
};

// whisper.cpp's rule (whisper_vocab::is_multilingual): n_vocab 51864 is an
// English-only model (".en"); 51865 and up are multilingual (51866: large-v3,
// with a 100th language).
inline bool IsMultilingual(const WhisperHparams& h) { return h.n_vocab >= 51865; }

struct WhisperTensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // ne[0] first
  uint32_t type = 0;           // ggml type id
  uint64_t offset = 0;         // of the data, from the start of the file
  uint64_t bytes = 0;
};

struct WhisperFile {
  WhisperHparams hparams;
  int32_t mel_bands = 0;     // the filter bank's n_mel (equal to hparams.n_mels)
  int32_t fft_bins = 0;      // its n_fft: 201 (1 + 400/2) in every real model
  uint64_t vocab_count = 0;  // tokens stored in the file (50256 or 50257 in real models)
  std::vector<WhisperTensorInfo> tensors;
  uint64_t file_size = 0;

  uint64_t ParameterCount() const;
  const WhisperTensorInfo* FindTensor(std::string_view name) const;
};

// Limits far above real models (large-v3: ~1,300 tensors, 51,866 tokens).
inline constexpr uint64_t kMaxWhisperTensors = 1 << 16;
inline constexpr uint64_t kMaxWhisperVocab = 1 << 20;
inline constexpr uint64_t kMaxWhisperFilterValues = 1 << 20;

// kInvalidArgument when the file is not a whisper ggml model or is damaged
// (a file without tensors counts as damaged: a cut-off download);
// kNotFound when it cannot be opened.
Result<WhisperFile> ReadWhisperFile(const std::filesystem::path& path);
Result<WhisperFile> ParseWhisperFile(std::string_view bytes);

// True when the file starts with the ggml magic (cheap; reads 4 bytes).
bool HasGgmlMagic(const std::filesystem::path& path);

// What the registry and placement know of a speech model: `speech` set,
// architecture "whisper", sizes, the text context and vocabulary (the
// decoder's buffers), layers (encoder + decoder).
ModelInfo DescribeWhisper(const WhisperFile& file);

}  // namespace zest::models
