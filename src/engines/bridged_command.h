// The command for an engine that listens on TCP only (whisper-server,
// sd-server): an outer bubblewrap with namespaces of its own, the host's
// system files and only the paths the engine needs, runs `zest
// engine-bridge` (tcp_bridge.h), which starts the engine in zest's usual
// engine sandbox (sandbox.h, sharing the outer's network). The engine's
// port exists nowhere else, and zest reaches it on the instance's UNIX
// socket. Pure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/sandbox.h"

namespace zest::engines {

// The outer sandbox alone: namespaces of its own, the host's system files,
// `self_exe`, the engine's rootfs or build tree and the model files
// read-only, the socket's directory writable, zest's home hidden; as root
// every capability dropped but CAP_SYS_ADMIN, for the engine's bwrap.
SandboxSpec BridgeSandbox(const EngineLocation& engine, const LaunchSpec& spec,
                          const std::filesystem::path& self_exe);

// `engine_args` (args[0] is replaced by the binary) behind the bridge on
// `port`. kUnavailable when the engine is not sandboxed (no bubblewrap: no
// network namespace to hide its port in).
Result<LaunchCommand> BridgedCommand(const EngineLocation& engine, const LaunchSpec& spec,
                                     uint16_t port, const std::vector<std::string>& engine_args,
                                     const std::filesystem::path& self_exe);

}  // namespace zest::engines
