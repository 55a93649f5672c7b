#include "placement/cpu_model_plan.h"

#include <cctype>

namespace zest::placement {
namespace {

uint64_t WeightBytes(const models::ModelInfo& model) {
  return model.tensor_bytes > 0 ? model.tensor_bytes : model.file_size;
}

std::string Capitalised(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

Result<EnginePlan> PlanWholeOnCpu(const models::ModelInfo& model,
                                  const std::vector<PlacementDevice>& devices,
                                  const CpuEngineNeeds& needs) {
  DeviceMemory memory;
  memory.weights = WeightBytes(model);
  memory.compute = needs.buffers;
  memory.overhead = needs.engine_bytes;
  const PlacementDevice* cpu = nullptr;
  for (const PlacementDevice& d : devices) {
    if (d.name == kCpuDevice) cpu = &d;
  }
  if (cpu == nullptr) return InsufficientMemory("no CPU device to place a " + needs.what + " on");
  if (memory.Total() > cpu->free_bytes) {
    return InsufficientMemory(needs.what + " needs " + FormatBytes(memory.Total()) +
                              " on the CPU; " + FormatBytes(cpu->free_bytes) + " free");
  }
  EnginePlan plan;
  plan.parallel = 1;  // the engine runs one request at a time
  plan.ctx_per_slot = needs.ctx_per_slot;
  plan.memory = {{kCpuDevice, memory}};
  const std::string arch = model.architecture.empty() ? "" : " (" + model.architecture + ")";
  plan.explanation = Capitalised(needs.what) + arch + " on the CPU (" + needs.engine +
                     "): weights " + FormatBytes(memory.weights) + ", " + needs.buffers_label +
                     " " + FormatBytes(memory.compute) + ", engine " +
                     FormatBytes(memory.overhead) + "; one request at a time.";
  return plan;
}

}  // namespace zest::placement
