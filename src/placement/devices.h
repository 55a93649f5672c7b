// PlacementDevice: a device llama-server can put layers on, with the memory
// zest may still use there. Built from the hardware inventory and the
// engine's own device list (`llama-server --list-devices`); the pool lowers
// free_bytes by what running instances hold (memory_book.h). Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engines/recipe_verdicts.h"
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
  // A ggml RPC worker's device (engines/rpc_backend.h): another machine's,
  // reached over the network; empty for this machine's devices. Placement
  // uses workers only for what does not fit here, or when named.
  std::string rpc_endpoint;
  // A worker that did not answer its last check: no memory, and
  // `description` says why.
  bool reachable = true;
  bool remote() const { return !rpc_endpoint.empty(); }
};

// The CPU first, then each GPU device the engine reports, matched in order
// to the inventory's GPUs for their memory when the engine's description
// does not carry "(N MiB, M MiB free)". `memory_limit` > 0 caps what zest
// may use of system RAM (and of unified GPU memory).
std::vector<PlacementDevice> DevicesFromInventory(
    const hardware::Inventory& inventory, const std::vector<engines::EngineDevice>& engine_devices,
    uint64_t memory_limit);

// A worker's device from what llama-server saw of it (engines::ProbeRpcWorker:
// "10.0.0.2:50052 (24105 MiB, 24105 MiB free)"), named
// engines::RpcDeviceName(endpoint); or an unreachable one, described by
// the reason ("RPC worker 10.0.0.2:50052 is unreachable (cannot connect)").
PlacementDevice WorkerDevice(const std::string& endpoint, const engines::EngineDevice& probed);
PlacementDevice UnreachableWorker(const std::string& endpoint, const std::string& reason);

// "1.5 GiB": sizes in explanations and errors.
std::string FormatBytes(uint64_t bytes);

}  // namespace zest::placement
