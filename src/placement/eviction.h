// Memory accounting between loaded instances and the choice of which idle
// instances to evict for a new one. Pure functions; the InstancePool calls
// them on its strand with what it holds.
#pragma once

#include <string>
#include <vector>

#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

// `devices` with the predicted use of every plan in `loaded` taken off their
// free memory (a unified GPU's use also off the CPU's, since it is system
// RAM). Never below zero. An RPC worker that a loaded plan uses has none
// left: ggml-rpc-server serves one engine at a time.
std::vector<PlacementDevice> FreeAfter(std::vector<PlacementDevice> devices,
                                       const std::vector<const EnginePlan*>& loaded);

// How far the plans in `loaded` take system RAM (devices[0], the CPU) past
// its free memory, counting as FreeAfter does; 0 when they fit. Engines
// grow after their load (a prompt cache filling), so they can.
uint64_t RamOvercommit(const std::vector<PlacementDevice>& devices,
                       const std::vector<const EnginePlan*>& loaded);

struct EvictionCandidate {
  std::string model;
  double idle_s = 0;  // since its last request finished
  double load_s = 0;  // how long it took to load (what evicting it costs later)
};

// Idle instances in the order to evict them: least recently used first,
// weighted by reload cost (idle seconds per second of reload, highest
// first), so a model that reloads in a second goes before one that took a
// minute, unless that one has been idle far longer. Instances with requests
// in flight must not be passed in.
std::vector<std::string> EvictionOrder(std::vector<EvictionCandidate> candidates);

}  // namespace zest::placement
