#include "placement/devices.h"

#include <algorithm>
#include <cstdio>
#include <regex>

#include "engines/rpc_backend.h"

namespace zest::placement {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// llama-server --list-devices: "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)".
bool ParseEngineMemory(const std::string& description, uint64_t& total, uint64_t& free) {
  static const std::regex kMemory(R"(\((\d+) MiB, (\d+) MiB free\))");
  std::smatch m;
  if (!std::regex_search(description, m, kMemory)) return false;
  total = std::stoull(m[1].str()) * kMiB;
  free = std::stoull(m[2].str()) * kMiB;
  return true;
}

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

PlacementDevice GpuDevice(const engines::EngineDevice& engine, const hardware::GpuInfo* gpu) {
  PlacementDevice d;
  d.name = engine.name;
  d.description = engine.description;
  d.gpu = true;
  const bool software = engine.description.find("llvmpipe") != std::string::npos;
  if (software) {
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
  uint64_t total = 0, free = 0;
  if (ParseEngineMemory(engine.description, total, free)) {
    d.total_bytes = total;
    d.free_bytes = free;
  }
  return d;
}

bool IsCpuBackend(const std::string& name) {
  return name.rfind("CPU", 0) == 0 || name.rfind("BLAS", 0) == 0;
}

}  // namespace

std::vector<PlacementDevice> DevicesFromInventory(
    const hardware::Inventory& inventory, const std::vector<engines::EngineDevice>& engine_devices,
    uint64_t memory_limit) {
  std::vector<PlacementDevice> devices = {CpuDevice(inventory, memory_limit)};
  std::size_t next_gpu = 0;
  for (const auto& engine : engine_devices) {
    if (IsCpuBackend(engine.name)) continue;
    const bool software = engine.description.find("llvmpipe") != std::string::npos;
    const hardware::GpuInfo* gpu =
        !software && next_gpu < inventory.gpus.size() ? &inventory.gpus[next_gpu++] : nullptr;
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

// A worker's device: an offload target, like a GPU (-ngl layers go there).
PlacementDevice Worker(const std::string& endpoint, std::string description, bool reachable) {
  PlacementDevice d;
  d.name = engines::RpcDeviceName(endpoint);
  d.description = std::move(description);
  d.gpu = true;
  d.rpc_endpoint = endpoint;
  d.reachable = reachable;
  return d;
}

}  // namespace

PlacementDevice WorkerDevice(const std::string& endpoint, const engines::EngineDevice& probed) {
  PlacementDevice d = Worker(endpoint, "RPC worker " + probed.description, true);
  ParseEngineMemory(probed.description, d.total_bytes, d.free_bytes);
  return d;
}

PlacementDevice UnreachableWorker(const std::string& endpoint, const std::string& reason) {
  return Worker(endpoint, reason, false);
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
