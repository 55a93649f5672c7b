// EngineDevice: a compute device as an engine's own probe reports it (the
// devices its backends see), beside what the inventory read from sysfs.
// engines/ fills it from the engine's output (engines/engine_probe.h, which
// knows that output's format); placement/ reads it to place layers
// (placement/devices.h) without knowing which engine said it. Plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace zest::hardware {

struct EngineDevice {
  std::string name;         // the engine's name for it: "Vulkan0", "CUDA0"
  std::string description;  // as the engine words it, for people
  // Its memory, when the engine says; else the inventory's GPU is used.
  std::optional<uint64_t> total_bytes = std::nullopt;
  std::optional<uint64_t> free_bytes = std::nullopt;
  // A software renderer (llvmpipe): computes on the CPU's cores, in system RAM.
  bool software = false;
};

}  // namespace zest::hardware
