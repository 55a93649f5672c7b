#include "api/device_metrics.h"

#include <map>

namespace zest::api {
namespace {

using Samples = std::vector<std::pair<metrics::LabelValues, double>>;

Samples Utilisation(const hardware::Utilisation& u) {
  Samples out;
  if (u.cpu_percent) out.push_back({{"cpu", "cpu"}, *u.cpu_percent});
  for (const auto& g : u.gpus) {
    if (g.busy_percent) out.push_back({{g.pci_address, "gpu"}, double(*g.busy_percent)});
  }
  return out;
}

Samples MemoryUsed(const hardware::Utilisation& u) {
  Samples out{{{"cpu", "cpu"}, double(u.ram_used_bytes)}};
  for (const auto& g : u.gpus) {
    out.push_back({{g.pci_address, "gpu"}, double(g.vram_used_bytes + g.gtt_used_bytes)});
  }
  return out;
}

// amdxdna exposes no busy counter; its runtime power state says whether the
// NPU is doing anything at all (the driver suspends it when idle).
Samples NpuActive(const hardware::Utilisation& u) {
  Samples out;
  for (const auto& n : u.npus) {
    if (!n.power_state.empty())
      out.push_back({{n.pci_address, "npu"}, n.power_state == "active" ? 1.0 : 0.0});
  }
  return out;
}

}  // namespace

void AddDeviceGauges(metrics::Registry& registry, const hardware::Inventory& inventory,
                     const hardware::UtilisationSampler& sampler) {
  std::map<std::string, double> gpu_totals;
  for (const auto& g : inventory.gpus) {
    if (g.vram_total_bytes + g.gtt_total_bytes > 0) {
      gpu_totals[g.pci.address] = double(g.vram_total_bytes + g.gtt_total_bytes);
    }
  }
  registry.AddGaugeCallback(
      "zest_device_utilisation_percent",
      "Device busy share in percent (CPU: all cores; GPU: the driver's busy %).",
      {"device", "kind"}, [&sampler] { return Utilisation(sampler.Snapshot()); });
  registry.AddGaugeCallback("zest_device_memory_used_bytes",
                            "Device memory in use (CPU: RAM total - available; GPU: VRAM + GTT).",
                            {"device", "kind"},
                            [&sampler] { return MemoryUsed(sampler.Snapshot()); });
  registry.AddGaugeCallback(
      "zest_device_memory_total_bytes", "Device memory size (CPU: RAM; GPU: VRAM + GTT).",
      {"device", "kind"}, [&sampler, gpu_totals] {
        Samples out{{{"cpu", "cpu"}, double(sampler.Snapshot().ram_total_bytes)}};
        for (const auto& [address, total] : gpu_totals) out.push_back({{address, "gpu"}, total});
        return out;
      });
  registry.AddGaugeCallback(
      "zest_device_active", "1 while an NPU is powered up (runtime PM active), 0 while suspended.",
      {"device", "kind"}, [&sampler] { return NpuActive(sampler.Snapshot()); });
}

}  // namespace zest::api
