// Placement of a speech-to-text model (a whisper.cpp model, engines/
// whisper_adapter.h): on the CPU, one request at a time, its memory
// predicted from the model's header: the weights, the decoder's buffers
// (logits for its whole text context) and the engine process. Pure.
#pragma once

#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

inline constexpr const char* kWhisperRecipe = "whispercpp";

// The engine process beside the model: its libraries (ggml, ffmpeg's
// codecs) and HTTP threads (measured with whisper-server 1.9.5: 55 MB
// resident with a 7.7 MB model, before the first request).
inline constexpr uint64_t kSpeechEngineBytes = 48ull << 20;

// kInsufficientMemory when the CPU's free memory cannot hold it.
Result<EnginePlan> PlanSpeech(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices);

}  // namespace zest::placement
