// Placement of the models that run whole on the CPU, one request at a time:
// speech-to-text models (whisper.cpp model files, engines/whisper_adapter.h)
// and image generation models (diffusion models, engines/sd_server_adapter.h).
// Their memory is predicted from the model's header: the weights, the
// engine's working buffers and the engine process. Pure.
#pragma once

#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

inline constexpr const char* kWhisperRecipe = "whispercpp";
inline constexpr const char* kStableDiffusionRecipe = "sdcpp";

// The speech engine process beside the model: its libraries (ggml, ffmpeg's
// codecs) and HTTP threads (measured with whisper-server 1.9.5: 55 MB
// resident with a 7.7 MB model, before the first request).
inline constexpr uint64_t kSpeechEngineBytes = 48ull << 20;

// The image engine's working buffers: the UNet's activations and the VAE
// decoder's at 512x512, which stable-diffusion.cpp allocates per image. An
// estimate (no sd-server runs here to measure): SD 1.x needs about 1 GB on
// the CPU; larger sizes and SDXL need more, which the engine's RSS then shows.
inline constexpr uint64_t kImageComputeBytes = 1ull << 30;
inline constexpr uint64_t kImageEngineBytes = 64ull << 20;

// kInsufficientMemory when the CPU's free memory cannot hold it.
Result<EnginePlan> PlanSpeech(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices);
Result<EnginePlan> PlanImages(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices);

}  // namespace zest::placement
