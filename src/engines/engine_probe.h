// What an engine says about itself: `llama-server --version` and
// `--list-devices`. Blocking (runs the engine twice, a second or so): call
// from a blocking pool or at startup, never on an I/O thread.
#pragma once

#include <chrono>
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

struct ProbeOptions {
  std::vector<std::string> env;  // "K=V" for the engine, e.g. GGML_VK_VISIBLE_DEVICES=0
  std::chrono::milliseconds timeout = std::chrono::seconds(20);  // per run; then killed
};

// Runs the engine through location.Command() (inside its sandbox for a
// rootfs). kEngineFailed when it exits non-zero or prints no version (the
// message carries its last output lines); kTimeout when a run hangs.
Result<EngineInfo> ProbeEngine(const EngineLocation& location);
Result<EngineInfo> ProbeEngine(const EngineLocation& location, const ProbeOptions& options);

// Parsers for the two outputs, exposed for tests. Both skip ggml's log lines.
// ParseVersion: the text after "version: ", or "" when there is none.
std::string ParseVersion(const std::string& output);
// ParseDeviceList: the indented "NAME: DESCRIPTION" lines after
// "Available devices:"; "(none)" gives an empty list.
std::vector<EngineDevice> ParseDeviceList(const std::string& output);

}  // namespace zest::engines
