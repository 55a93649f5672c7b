#include "placement/eviction.h"

#include <algorithm>

#include "placement/npu.h"

namespace zest::placement {
namespace {

// Reloads faster than this count as this long, so a fresh instance with an
// instant (cached) load is not evicted before one idle for minutes.
constexpr double kMinReloadSeconds = 1.0;

void Take(PlacementDevice& device, uint64_t bytes) {
  device.free_bytes -= std::min(device.free_bytes, bytes);
}

}  // namespace

std::vector<PlacementDevice> FreeAfter(std::vector<PlacementDevice> devices,
                                       const std::vector<const EnginePlan*>& loaded) {
  for (const EnginePlan* plan : loaded) {
    for (const DeviceUse& use : plan->memory) {
      // The NPU is no placement device: what its engine holds is system RAM.
      if (use.device == kNpuDevice) Take(devices[0], use.memory.Total());
      for (PlacementDevice& d : devices) {
        if (d.name != use.device) continue;
        Take(d, use.memory.Total());
        if (d.unified && d.name != devices[0].name) Take(devices[0], use.memory.Total());
        if (d.remote()) d.free_bytes = 0;
      }
    }
  }
  return devices;
}

uint64_t RamOvercommit(const std::vector<PlacementDevice>& devices,
                       const std::vector<const EnginePlan*>& loaded) {
  if (devices.empty()) return 0;
  uint64_t ram = 0;
  for (const EnginePlan* plan : loaded) {
    for (const DeviceUse& use : plan->memory) {
      const bool on_ram =
          use.device == devices[0].name || use.device == kNpuDevice ||
          std::any_of(devices.begin(), devices.end(),
                      [&](const PlacementDevice& d) { return d.unified && d.name == use.device; });
      if (on_ram) ram += use.memory.Total();
    }
  }
  return ram > devices[0].free_bytes ? ram - devices[0].free_bytes : 0;
}

std::vector<std::string> EvictionOrder(std::vector<EvictionCandidate> candidates) {
  auto score = [](const EvictionCandidate& c) {
    return c.idle_s / std::max(c.load_s, kMinReloadSeconds);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const auto& a, const auto& b) { return score(a) > score(b); });
  std::vector<std::string> order;
  order.reserve(candidates.size());
  for (const auto& c : candidates) order.push_back(c.model);
  return order;
}

}  // namespace zest::placement
