// Placement of the models that run whole on the CPU, one request at a time
// (speech-to-text and image generation models): the engine that runs them
// says what it needs beside the weights (CpuEngineNeeds, filled by
// engines/engine_needs.h), and the plan is that on the CPU, or a clear
// refusal when the CPU's free memory cannot hold it. Pure.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

struct CpuEngineNeeds {
  std::string what;           // for messages: "speech model", "image model"
  std::string engine;         // for the explanation: the engine's name
  uint64_t buffers = 0;       // its working buffers for one request
  std::string buffers_label;  // what they are: "decoder buffers"
  uint64_t engine_bytes = 0;  // the engine process beside the model
  uint64_t ctx_per_slot = 0;  // the context it runs the model at; 0 = none to speak of
};

// kInsufficientMemory when the CPU's free memory cannot hold it.
Result<EnginePlan> PlanWholeOnCpu(const models::ModelInfo& model,
                                  const std::vector<PlacementDevice>& devices,
                                  const CpuEngineNeeds& needs);

}  // namespace zest::placement
