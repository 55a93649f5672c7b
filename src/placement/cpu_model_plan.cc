#include "placement/cpu_model_plan.h"

namespace zest::placement {
namespace {

// `memory` on the CPU for one request at a time, explained as `what`.
Result<EnginePlan> PlanOnCpu(const char* recipe, const std::string& what, DeviceMemory memory,
                             const std::vector<PlacementDevice>& devices) {
  const PlacementDevice* cpu = nullptr;
  for (const PlacementDevice& d : devices) {
    if (d.name == kCpuDevice) cpu = &d;
  }
  if (cpu == nullptr) return InsufficientMemory("no CPU device to place a " + what + " on");
  if (memory.Total() > cpu->free_bytes) {
    return InsufficientMemory(what + " needs " + FormatBytes(memory.Total()) + " on the CPU; " +
                              FormatBytes(cpu->free_bytes) + " free");
  }
  EnginePlan plan;
  plan.recipe = recipe;
  plan.parallel = 1;  // the engine runs one request at a time
  plan.memory = {{kCpuDevice, memory}};
  return plan;
}

uint64_t WeightBytes(const models::ModelInfo& model) {
  return model.tensor_bytes > 0 ? model.tensor_bytes : model.file_size;
}

}  // namespace

Result<EnginePlan> PlanSpeech(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices) {
  DeviceMemory memory;
  memory.weights = WeightBytes(model);
  // The decoder's logits over its text context, F32: the largest buffer.
  memory.compute = model.vocab_size * model.context_length * 4;
  memory.overhead = kSpeechEngineBytes;
  ZEST_ASSIGN_OR_RETURN(EnginePlan plan,
                        PlanOnCpu(kWhisperRecipe, "speech model", memory, devices));
  plan.ctx_per_slot = model.context_length;
  plan.explanation = "Speech model on the CPU (whisper.cpp): weights " +
                     FormatBytes(memory.weights) + ", decoder buffers " +
                     FormatBytes(memory.compute) + ", engine " + FormatBytes(memory.overhead) +
                     "; one request at a time.";
  return plan;
}

Result<EnginePlan> PlanImages(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices) {
  DeviceMemory memory;
  memory.weights = WeightBytes(model);
  memory.compute = kImageComputeBytes;
  memory.overhead = kImageEngineBytes;
  ZEST_ASSIGN_OR_RETURN(EnginePlan plan,
                        PlanOnCpu(kStableDiffusionRecipe, "image model", memory, devices));
  plan.explanation = "Image model (" + model.architecture +
                     ") on the CPU (stable-diffusion.cpp): weights " + FormatBytes(memory.weights) +
                     ", working buffers " + FormatBytes(memory.compute) +
                     " (estimated at 512x512), engine " + FormatBytes(memory.overhead) +
                     "; one request at a time.";
  return plan;
}

}  // namespace zest::placement
