#include "placement/speech_plan.h"

namespace zest::placement {

Result<EnginePlan> PlanSpeech(const models::ModelInfo& model,
                              const std::vector<PlacementDevice>& devices) {
  const PlacementDevice* cpu = nullptr;
  for (const PlacementDevice& d : devices) {
    if (d.name == kCpuDevice) cpu = &d;
  }
  if (cpu == nullptr) return InsufficientMemory("no CPU device to place a speech model on");
  DeviceMemory memory;
  memory.weights = model.tensor_bytes > 0 ? model.tensor_bytes : model.file_size;
  // The decoder's logits over its text context, F32: the largest buffer.
  memory.compute = model.vocab_size * model.context_length * 4;
  memory.overhead = kSpeechEngineBytes;
  if (memory.Total() > cpu->free_bytes) {
    return InsufficientMemory("speech model needs " + FormatBytes(memory.Total()) +
                              " on the CPU; " + FormatBytes(cpu->free_bytes) + " free");
  }
  EnginePlan plan;
  plan.recipe = kWhisperRecipe;
  plan.parallel = 1;  // whisper-server runs one inference at a time
  plan.ctx_per_slot = model.context_length;
  plan.memory = {{kCpuDevice, memory}};
  plan.explanation = "Speech model on the CPU (whisper.cpp): weights " +
                     FormatBytes(memory.weights) + ", decoder buffers " +
                     FormatBytes(memory.compute) + ", engine " + FormatBytes(memory.overhead) +
                     "; one request at a time.";
  return plan;
}

}  // namespace zest::placement
