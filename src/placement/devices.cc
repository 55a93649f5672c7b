#include "placement/devices.h"

#include <algorithm>
#include <cstdio>

namespace zest::placement {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

PlacementDevice CpuDevice(const hardware::Inventory& inventory, uint64_t memory_limit) {
  PlacementDevice cpu;
  cpu.name = kCpuDevice;
  cpu.description = inventory.cpu.model_name.empty() ? "CPU" : inventory.cpu.model_name;
  cpu.total_bytes = inventory.memory.total_bytes;
  cpu.free_bytes = inventory.memory.available_bytes;
  const auto& f = inventory.cpu.features;
  cpu.repacks_weights = std::find(f.begin(), f.end(), "amx_int8") != f.end();
  if (memory_limit > 0) {
    cpu.total_bytes = memory_limit;
    cpu.free_bytes = memory_limit;
  }
  return cpu;
}

PlacementDevice GpuDevice(const hardware::EngineDevice& engine, const hardware::GpuInfo* gpu) {
  PlacementDevice d;
  d.name = engine.name;
  d.description = engine.description;
  d.gpu = true;
  if (engine.software) {
    d.unified = true;
    d.speed_rank = 0;
  } else if (gpu != nullptr) {
    d.description = gpu->name + (gpu->unified_memory ? " (unified memory)" : "");
    d.unified = gpu->unified_memory;
    d.speed_rank = gpu->integrated ? 2 : 3;
    // An APU maps system memory through GTT beside its small VRAM carve-out.
    d.total_bytes = gpu->vram_total_bytes + (gpu->unified_memory ? gpu->gtt_total_bytes : 0);
    const uint64_t used = gpu->vram_used_bytes + (gpu->unified_memory ? gpu->gtt_used_bytes : 0);
    d.free_bytes = d.total_bytes - std::min(used, d.total_bytes);
  }
  if (engine.total_bytes && engine.free_bytes) {
    d.total_bytes = *engine.total_bytes;
    d.free_bytes = *engine.free_bytes;
  }
  return d;
}

}  // namespace

std::vector<PlacementDevice> DevicesFromInventory(
    const hardware::Inventory& inventory, const std::vector<hardware::EngineDevice>& engine_devices,
    uint64_t memory_limit) {
  std::vector<PlacementDevice> devices = {CpuDevice(inventory, memory_limit)};
  std::size_t next_gpu = 0;
  for (const auto& engine : engine_devices) {
    const hardware::GpuInfo* gpu = !engine.software && next_gpu < inventory.gpus.size()
                                       ? &inventory.gpus[next_gpu++]
                                       : nullptr;
    PlacementDevice d = GpuDevice(engine, gpu);
    if (d.unified && memory_limit > 0) {
      d.total_bytes = std::min(d.total_bytes, memory_limit);
      d.free_bytes = std::min(d.free_bytes, memory_limit);
    }
    devices.push_back(std::move(d));
  }
  return devices;
}

namespace {

// A worker's device: an offload target, like a GPU (layers go there).
PlacementDevice Worker(const std::string& name, const std::string& endpoint,
                       std::string description, bool reachable) {
  PlacementDevice d;
  d.name = name;
  d.description = std::move(description);
  d.gpu = true;
  d.rpc_endpoint = endpoint;
  d.reachable = reachable;
  return d;
}

}  // namespace

PlacementDevice WorkerDevice(const std::string& endpoint, const hardware::EngineDevice& probed) {
  PlacementDevice d = Worker(probed.name, endpoint, "RPC worker " + probed.description, true);
  d.total_bytes = probed.total_bytes.value_or(0);
  d.free_bytes = probed.free_bytes.value_or(0);
  return d;
}

PlacementDevice UnreachableWorker(const std::string& name, const std::string& endpoint,
                                  const std::string& reason) {
  return Worker(name, endpoint, reason, false);
}

std::string FormatBytes(uint64_t bytes) {
  char text[32];
  const double gib = static_cast<double>(bytes) / (1ull << 30);
  if (gib >= 1) {
    std::snprintf(text, sizeof(text), "%.1f GiB", gib);
  } else {
    std::snprintf(text, sizeof(text), "%.0f MiB", static_cast<double>(bytes) / kMiB);
  }
  return text;
}

}  // namespace zest::placement
