#include "placement/cpu_threads.h"

#include <algorithm>

namespace zest::placement {

bool ComputesOnCpu(const EnginePlan& plan, uint64_t block_count) {
  if (plan.on_npu) return false;
  if (plan.gpu_devices.empty() || plan.software_gpu) return true;
  return static_cast<uint64_t>(std::max(plan.n_gpu_layers, 0)) < block_count + 1 ||
         plan.n_cpu_moe > 0;
}

int CpuThreadShare(int cores, const std::vector<int>& running) {
  const int engines = static_cast<int>(running.size()) + 1;
  return std::max(1, cores / engines);
}

}  // namespace zest::placement
