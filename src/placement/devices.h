// PlacementDevice: a device the engine can put layers on, with the memory
// zest may still use there. Built from the hardware inventory and the
// devices the engine itself reports (hardware/engine_device.h, filled by
// engines/); the pool lowers free_bytes by what running instances hold
// (eviction.h: FreeAfter). Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/engine_device.h"
#include "hardware/inventory.h"

namespace zest::placement {

inline constexpr const char* kCpuDevice = "CPU";

struct PlacementDevice {
  std::string name;         // engine device name: "CPU", "Vulkan0", "CUDA0"
  std::string description;  // for explanations: "AMD Radeon 8060S (unified memory)"
  bool gpu = false;
  // Allocates from system RAM (APUs, llvmpipe): its use also comes out of
  // the CPU device's memory.
  bool unified = false;
  // Higher runs faster: 3 discrete GPU, 2 integrated GPU, 1 CPU, 0 a
  // software renderer (llvmpipe; only used when asked for by name).
  int speed_rank = 1;
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
  // CPU only: llama.cpp's CPU backend repacks weights for AMX (see LoadShape).
  bool repacks_weights = false;
  // An RPC worker's device: another machine's, reached over the network
  // (its endpoint "HOST:PORT"); empty for this machine's devices. Placement
  // uses workers only for what does not fit here, or when named.
  std::string rpc_endpoint;
  // A worker that did not answer its last check: no memory, and
  // `description` says why.
  bool reachable = true;
  bool remote() const { return !rpc_endpoint.empty(); }
};

// The CPU first, then each device the engine reports, matched in order to
// the inventory's GPUs for their memory when the engine does not state it
// (software renderers are matched to none). `memory_limit` > 0 caps what
// zest may use of system RAM (and of unified GPU memory).
std::vector<PlacementDevice> DevicesFromInventory(
    const hardware::Inventory& inventory, const std::vector<hardware::EngineDevice>& engine_devices,
    uint64_t memory_limit);

// A worker's device from what the engine saw of it (engines::ProbeRpcWorker
// names it and says its memory: "10.0.0.2:50052 (24105 MiB, 24105 MiB
// free)"); or an unreachable one, named `name` and described by the reason
// ("RPC worker 10.0.0.2:50052 is unreachable (cannot connect)").
PlacementDevice WorkerDevice(const std::string& endpoint, const hardware::EngineDevice& probed);
PlacementDevice UnreachableWorker(const std::string& name, const std::string& endpoint,
                                  const std::string& reason);

// "1.5 GiB": sizes in explanations and errors.
std::string FormatBytes(uint64_t bytes);

}  // namespace zest::placement
