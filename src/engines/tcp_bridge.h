// TcpBridge: zest reaches every engine through a UNIX socket in its 0700 run
// directory, so no other local process can get around the gateway's keys,
// limits and accounting. FastFlowLM only listens on TCP. So it runs in a
// network namespace of its own (bubblewrap --unshare-net, flm_command.h)
// beside this bridge, `zest engine-bridge`, which starts it, relays each
// connection to the UNIX socket on to its loopback port (which exists only
// inside that namespace), and exits with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace zest::engines {

struct BridgeOptions {
  std::filesystem::path socket;      // created (0600); removed on exit
  uint16_t port = 0;                 // the engine's port on 127.0.0.1
  std::vector<std::string> command;  // the engine, started as a child
};

// `zest engine-bridge --socket S --port P --` (the engine's argv follows):
// how a sandbox runs this binary, `zest`, as the bridge.
std::vector<std::string> BridgeCommand(const std::filesystem::path& zest,
                                       const std::filesystem::path& socket, uint16_t port);

// Starts the command, relays until it exits, and returns its exit status
// (128 + the signal when killed; 127 when it could not be started, 1 when
// the socket could not be made). SIGTERM and SIGINT are passed on to it.
// Once the command is started the bridge drops every capability it has.
// Blocks; meant to be the whole process.
int RunBridge(const BridgeOptions& options);

}  // namespace zest::engines
