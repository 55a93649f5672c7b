// A synthetic vision projector (an "mmproj" GGUF) with random weights: a
// small CLIP-style vision transformer and a LLaVA two-layer MLP projector
// that llama-server loads beside a synthetic text model (`--mmproj`), so an
// image in a chat request becomes image tokens in the prompt. Its image
// embeddings are noise; for tests, the demo and benchmarks only.
//
// Why LLaVA's "mlp" projector: of the types llama.cpp's libmtmd supports it
// is the least the engine checks against the text model. The engine only
// requires its output width (mm.2.weight's rows) to equal the text model's
// embedding width; it wraps the image in no marker text (gemma3 adds
// <start_of_image>/<end_of_image>, idefics3 and minicpmv per-slice tokens
// the text vocabulary would have to hold), so a prompt grows by exactly the
// image's tokens; and without image_grid_pinpoints it resizes every image
// to one image_size square (no tiling, no dynamic resolution), so that
// count is fixed: (image_size / patch_size)^2.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "core/result.h"
#include "tools/gguf_writer.h"

namespace zest::tools {

// clip.projector_type of the projectors this writes.
inline constexpr const char* kProjectorTypeMlp = "mlp";

struct VisionProjectorSpec {
  std::string name = "zest-synthetic-mmproj";
  // The projector's output width: must equal the text model's embedding
  // length or llama-server refuses the pair at load.
  uint32_t text_embedding = 64;
  // Every image is resized to image_size x image_size and cut into
  // patch_size squares, one image token each.
  uint32_t image_size = 32;
  uint32_t patch_size = 8;
  // The vision transformer's own shape. feed_forward must differ from
  // embedding: llama.cpp takes an ffn_down whose input width equals the
  // embedding for a legacy file with up and down swapped.
  uint32_t embedding = 64;
  uint32_t heads = 4;
  uint32_t feed_forward = 128;
  // LLaVA reads the second-to-last block's output, so the last block's
  // weights are loaded but never run; 2 is the smallest that runs one.
  uint32_t layers = 2;
  TensorType type = TensorType::kF32;  // matrices; norms, biases, positions stay F32
  uint64_t seed = 2;
};

// The tokens one image takes in the prompt: (image_size / patch_size)^2,
// whatever the image's own size (the engine resizes it).
uint32_t ImageTokenCount(const VisionProjectorSpec& spec);

// The projector for a text model of embedding width `text_embedding` whose
// matrices are of `type` (F32, F16, or Q8_0: the vision shapes are
// multiples of 32, so a Q8_0 projector needs text_embedding to be one too).
VisionProjectorSpec ProjectorFor(uint32_t text_embedding, TensorType type,
                                 const std::string& model_name);

// kInvalidArgument for shapes the engine cannot run (image_size not a
// multiple of patch_size, embedding not a multiple of heads, ...). Atomic
// like GgufWriter: readers see no file or the whole file.
Status WriteVisionProjector(const VisionProjectorSpec& spec, const std::filesystem::path& path);

}  // namespace zest::tools
