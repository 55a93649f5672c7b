// What an engine says about itself: `llama-server --version` and
// `--list-devices`. Blocking (runs the engine twice, a second or so): call
// from a blocking pool or at startup, never on an I/O thread.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_locator.h"

namespace zest::engines {

struct EngineDevice {
  std::string name;         // "Vulkan0"
  std::string description;  // "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)"
};

struct EngineInfo {
  EngineLocation location;
  std::string version;                // "0.7.0 (build 11669, commit Debian)"
  std::vector<EngineDevice> devices;  // empty: CPU only
};

Result<EngineInfo> ProbeEngine(const EngineLocation& location);

// Parsers for the two outputs, exposed for tests.
std::string ParseVersion(const std::string& output);
std::vector<EngineDevice> ParseDeviceList(const std::string& output);

}  // namespace zest::engines
