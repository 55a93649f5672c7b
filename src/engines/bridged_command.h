// The command for an engine that listens on TCP only (whisper-server,
// sd-server): an outer bubblewrap with the host's files read-only
// (SandboxView::kHostReadOnly) and namespaces of its own runs `zest engine-bridge`
// (tcp_bridge.h), which starts the engine in zest's usual engine sandbox
// (sandbox.h, sharing the outer's network). The engine's port exists
// nowhere else, and zest reaches it on the instance's UNIX socket. Pure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"

namespace zest::engines {

// `engine_args` (args[0] is replaced by the binary) behind the bridge on
// `port`. kUnavailable when the engine is not sandboxed (no bubblewrap: no
// network namespace to hide its port in).
Result<LaunchCommand> BridgedCommand(const EngineLocation& engine, const LaunchSpec& spec,
                                     uint16_t port, const std::vector<std::string>& engine_args,
                                     const std::filesystem::path& self_exe);

}  // namespace zest::engines
