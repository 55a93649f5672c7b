#include "placement/fit.h"

#include <algorithm>

#include "placement/memory_ledger.h"

namespace zest::placement {
namespace {

// This machine's GPUs zest places on by itself (policy.h: software
// renderers only by name; RPC workers for what does not fit here).
bool Chosen(const PlacementDevice& d) { return d.gpu && d.speed_rank > 0 && !d.remote(); }

bool HasGpu(const std::vector<PlacementDevice>& devices) {
  return std::any_of(devices.begin(), devices.end(), Chosen);
}

// A file-size estimate's headroom for KV cache and compute buffers: a
// modest context costs about a tenth of the weights on common models.
uint64_t SizeEstimate(uint64_t file_bytes) {
  return file_bytes + file_bytes / 10 + kEngineOverheadBytes;
}

}  // namespace

uint64_t AvailableBytes(const std::vector<PlacementDevice>& devices) {
  uint64_t total = devices.empty() ? 0 : devices[0].free_bytes;
  for (std::size_t i = 1; i < devices.size(); ++i) {
    const bool worker = devices[i].remote() && devices[i].reachable;
    if ((Chosen(devices[i]) && !devices[i].unified) || worker) total += devices[i].free_bytes;
  }
  return total;
}

ModelFit FitOfPlan(const Result<EnginePlan>& plan, const models::ModelInfo& model,
                   const std::vector<PlacementDevice>& devices, uint64_t cpu_only_bytes) {
  ModelFit fit;
  fit.available_bytes = AvailableBytes(devices);
  if (!plan.ok()) {
    fit.verdict = "no";
    fit.needed_bytes = cpu_only_bytes;
    fit.reason = plan.status().message();
    return fit;
  }
  fit.needed_bytes = plan->TotalBytes();
  fit.reason = plan->explanation;
  fit.ctx_per_slot = plan->ctx_per_slot;
  if (plan->on_npu) {
    fit.verdict = "npu";
  } else if (plan->gpu_devices.empty()) {
    fit.verdict = HasGpu(devices) ? "cpu" : "yes";
  } else {
    const bool every_layer = static_cast<uint64_t>(plan->n_gpu_layers) >= model.block_count + 1;
    fit.verdict = every_layer && plan->n_cpu_moe == 0 ? "yes" : "partial";
  }
  return fit;
}

ModelFit FitOfSize(uint64_t file_bytes, const std::vector<PlacementDevice>& devices) {
  ModelFit fit;
  fit.needed_bytes = SizeEstimate(file_bytes);
  fit.available_bytes = AvailableBytes(devices);
  const uint64_t ram = devices.empty() ? 0 : devices[0].free_bytes;
  uint64_t best_gpu = 0;
  for (const PlacementDevice& d : devices) {
    if (Chosen(d)) best_gpu = std::max(best_gpu, d.free_bytes);
  }
  if (best_gpu > 0 && fit.needed_bytes <= best_gpu) {
    fit.verdict = "yes";
  } else if (best_gpu > 0 && fit.needed_bytes <= fit.available_bytes) {
    fit.verdict = "partial";
  } else if (fit.needed_bytes <= ram) {
    fit.verdict = best_gpu > 0 ? "cpu" : "yes";
  } else {
    fit.verdict = "no";
  }
  fit.reason = "estimated from the file size (" + FormatBytes(file_bytes) + ")";
  return fit;
}

}  // namespace zest::placement
