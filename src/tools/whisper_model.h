// A synthetic whisper model with random weights, in whisper.cpp's legacy
// ggml format (the `.bin` files whisper-server loads; layout in
// models/whisper_file.h). It loads in a real whisper-server and transcribes
// any audio, quickly, into the same five made-up words per 30 s window
// (the decoder follows a script: tools/whisper_script.h). For tests and the
// demo only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/result.h"
#include "tools/gguf_writer.h"

namespace zest::tools {

// Small where whisper.cpp allows it (layers, width); the audio geometry is
// the real one: 80 mel bands and 1500 audio positions (30 s windows of
// 3000 mel frames, halved by the second convolution), which whisper.cpp's
// windowing assumes, and 448 text positions.
struct WhisperModelSpec {
  uint32_t audio_layers = 2;
  // Not 2: whisper.cpp takes any model with two decoder layers (and n_vocab
  // other than 51866) for distil-whisper and decodes it without timestamps.
  uint32_t text_layers = 1;
  uint32_t state = 64;  // n_audio_state == n_text_state
  // Head size state/heads: 64 as in every real whisper model, a size every
  // ggml backend's attention kernels support.
  uint32_t heads = 1;
  bool multilingual = true;            // n_vocab 51865 (99 languages); false: 51864 (".en")
  TensorType type = TensorType::kF16;  // matrices; norms, biases, positions stay F32
  uint64_t seed = 1;
};

inline constexpr int32_t kWhisperAudioContext = 1500;
inline constexpr int32_t kWhisperTextContext = 448;
inline constexpr int32_t kWhisperMelBands = 80;

// kInvalidArgument for shapes whisper.cpp cannot run (state not a multiple
// of heads; Q8_0 needs state to be a multiple of 32). Atomic like GgufWriter:
// readers see no file or the whole file.
Status WriteWhisperModel(const WhisperModelSpec& spec, const std::filesystem::path& path);

// The text whisper-server returns for each 30 s window of any audio, with
// its defaults (timestamps on, no initial prompt): " w1 w2 w3 w4 w5", one
// segment from 0.00 to 2.00 s of the window. Depends on the seed and the
// vocabulary (multilingual or not) only.
std::string WhisperModelTranscript(const WhisperModelSpec& spec);

}  // namespace zest::tools
