// ProjectorInfo: what zest reads from a multimodal projector GGUF (the
// `mmproj-*.gguf` beside a vision model, what llama-server takes with
// `--mmproj`), to pair it with its model, refuse one that cannot fit, and
// show what it adds. Keys as llama.cpp's converter writes them and its clip
// loader (libmtmd) reads them. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::models {

struct ProjectorInfo {
  std::string name;  // general.name
  // clip.projector_type ("mlp", "gemma3", "qwen2.5vl_merger", ...), or for
  // a projector with both encoders clip.vision.projector_type and
  // clip.audio.projector_type; empty where the encoder is absent.
  std::string vision_projector_type;
  std::string audio_projector_type;
  bool has_vision = false;  // clip.has_vision_encoder: takes images
  bool has_audio = false;   // clip.has_audio_encoder: takes audio
  // clip.has_gen_audio_encoder: writes audio. The codec of a speech-out
  // model that llama-tts (libmtmd) runs, such as Qwen3-TTS's or Pocket
  // TTS's, is shipped as an mmproj; the registry pairs it as the model's
  // vocoder, not as a projector. Its type is clip.gen.audio.projector_type
  // ("qwen3tts", "pockettts").
  bool has_gen_audio = false;
  std::string gen_audio_projector_type;
  // The width of the embeddings it feeds the text model, which must equal
  // the text model's embedding length (the engine refuses the pair
  // otherwise). 0 when the file does not say.
  uint64_t embedding_length = 0;
  // The vision encoder's input: images are resized or tiled to image_size
  // squares, each cut into patch_size squares. 0 without a vision encoder.
  uint64_t image_size = 0;
  uint64_t patch_size = 0;
  uint64_t tensor_bytes = 0;  // sum of tensor data sizes (weights in memory)
  bool synthetic = false;     // written by zest-make-model (`zest.synthetic`)
};

// kInvalidArgument when `file` is not a projector (not general.architecture
// "clip" / general.type "mmproj", e.g. a language model) or declares no
// encoder at all (vision, audio, or audio generation).
Result<ProjectorInfo> DescribeProjector(const GgufFile& file);

// kInvalidArgument, naming both widths, when a projector of `projector`'s
// embedding width cannot feed a model of `model_embedding_length`; Ok when
// they match or the projector's width is unknown (the engine decides).
Status CheckProjectorFits(const ProjectorInfo& projector, uint64_t model_embedding_length);

}  // namespace zest::models
