// What zest's engines need and allow, in placement's engine-neutral terms
// (placement/npu.h, placement/cpu_model_plan.h). Placement knows no engine;
// the scheduler and the server's wiring ask here about the engine that
// would run a model, and hand placement the answer. Pure (the catalog is
// compiled in).
//   - The NPU: FastFlowLM runs models' NPU builds (their `flm` tags), one
//     model at a time, and takes none of llama-server's layout options.
//   - Whole on the CPU: whisper.cpp (speech) and stable-diffusion.cpp
//     (images) need working buffers and their process beside the weights.
//   - Slots: llama-server's embedding models want a power of two.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "engines/engine_set.h"
#include "engines/recipe_verdicts.h"
#include "hardware/inventory.h"
#include "models/gguf_reader.h"
#include "placement/cpu_model_plan.h"
#include "placement/npu.h"

namespace zest::engines {

// XRT, the NPU kernels (xclbins) and FastFlowLM's own buffers. Not measured
// here (this machine has no NPU): a round figure to replace with a measured
// one, as placement's kEngineOverheadBytes was.
inline constexpr uint64_t kFlmRuntimeBytes = 512ull << 20;
// Below this FastFlowLM raises the context itself (its release notes).
inline constexpr uint64_t kFlmMinContext = 512;

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
// llama-tts beside a speech-out model: `zest tts-engine` and llama-tts's
// libraries and buffers (the vocoder's weights are added by the caller), an
// estimate; the context it is counted at (llama-tts's default).
inline constexpr uint64_t kTtsEngineBytes = 96ull << 20;
inline constexpr uint64_t kTtsContext = 8192;

// What a speech-out model's vocoder adds beside its backbone: its weights
// (the file's size); for an OuteTTS model's WavTokenizer (a
// `wavtokenizer-dec` GGUF, served by a llama-server of its own) also that
// second engine's runtime (kTtsEngineBytes) and its working buffers for a
// whole batch of codes (kOuteTtsVocoderBatch): the 1282 output floats and
// about eight hidden-width activations a code, F32 (an estimate from the
// graph's shape: for WavTokenizer-large, 768 wide, 122 MiB; a width the file
// claims past 65536 is charged as 65536), and that batch's frames as JSON
// text in both processes (64 bytes a float, measured: 321 MiB). 0 when the
// file cannot be read.
uint64_t VocoderBytes(const std::filesystem::path& vocoder);

// The machine's side of the NPU request (present, usable, why, the NPU's
// name) from the inventory and FastFlowLM's recipe verdict, with
// FastFlowLM's needs; the scheduler adds the model's build and the holder.
placement::NpuRequest NpuRequestFor(const hardware::Inventory& inventory,
                                    const std::vector<RecipeVerdict>& verdicts);

// The model's NPU build: its `flm` option, else its catalog entry's; "" = none.
std::string NpuCheckpoint(const config::ModelSettings& options, const std::string& catalog_name);

// The options `options` sets that only llama-server takes, and so pin the
// model to it ("n_gpu_layers, extra_args, which only llama-server takes");
// "" when none. `device` is placement's own to judge.
std::string NpuRefusedOptions(const config::ModelSettings& options);

// The sequences (slots) to run `model` with when the server's default is
// `parallel`: a pooling embedding engine (llama.cpp build 11669) asserts at
// load unless its sequence count divides the micro-batch (512), so an
// embedding model gets the largest power of two not above it.
int DefaultParallel(const models::ModelInfo& model, int parallel);

// What the engine for a model run whole on the CPU (a speech or an image
// model: `choice`) needs beside the weights.
placement::CpuEngineNeeds CpuEngineNeedsFor(const EngineChoice& choice,
                                            const models::ModelInfo& model);

}  // namespace zest::engines
