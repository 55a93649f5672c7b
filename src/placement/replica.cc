#include "placement/replica.h"

#include <algorithm>

#include "placement/npu.h"

namespace zest::placement {

std::string PrimaryDevice(const EnginePlan& plan) {
  if (plan.on_npu) return kNpuDevice;
  return plan.gpu_devices.empty() ? std::string(kCpuDevice) : plan.gpu_devices.front();
}

namespace {

// This machine's GPUs by speed (fastest first, stable), then the CPU. Not
// RPC workers: they extend one instance's memory; a replica is for speed.
std::vector<std::string> CandidateOrder(const std::vector<PlacementDevice>& devices) {
  std::vector<const PlacementDevice*> gpus;
  for (std::size_t i = 1; i < devices.size(); ++i) {
    if (!devices[i].remote()) gpus.push_back(&devices[i]);
  }
  std::stable_sort(gpus.begin(), gpus.end(),
                   [](const PlacementDevice* a, const PlacementDevice* b) {
                     return a->speed_rank > b->speed_rank;
                   });
  std::vector<std::string> out;
  for (const PlacementDevice* d : gpus) out.push_back(d->name);
  out.push_back(kCpuDevice);
  return out;
}

}  // namespace

Result<EnginePlan> PlanReplica(const models::ModelInfo& model,
                               const std::vector<PlacementDevice>& devices,
                               const PlacementRequest& request,
                               const std::vector<std::string>& used) {
  std::string tried;
  Status last = InsufficientMemory("no device left for another instance of '" + request.model_name +
                                   "' (it runs on every one)");
  for (const std::string& device : CandidateOrder(devices)) {
    if (std::find(used.begin(), used.end(), device) != used.end()) continue;
    PlacementRequest on_device = request;
    on_device.options.device = device == kCpuDevice ? "cpu" : device;
    // A replica is one whole device: the user's split is for the first
    // instance's GPUs and would not match the one named here.
    on_device.options.tensor_split.clear();
    // Replicas run on the CPU and GPUs; the NPU (an engine of its own for
    // the model's NPU build) is only ever a model's first instance.
    on_device.npu = NpuRequest{};
    Result<EnginePlan> plan = PlanPlacement(model, devices, on_device);
    if (plan.ok() && PrimaryDevice(*plan) == device) return plan;
    if (!plan.ok() && plan.status().code() != ErrorCode::kInsufficientMemory) return plan.status();
    // A GPU that takes no layer leaves the instance on the CPU: not this device.
    if (plan.ok()) {
      last = InsufficientMemory("no layer of '" + request.model_name + "' fits on " + device);
    } else {
      last = plan.status();
    }
    tried += (tried.empty() ? "" : "; ") + device + ": " + last.message();
  }
  if (tried.empty()) return last;
  return InsufficientMemory("another instance of '" + request.model_name +
                            "' fits on no unused device (" + tried + ")");
}

}  // namespace zest::placement
