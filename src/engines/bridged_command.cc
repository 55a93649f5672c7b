#include "engines/bridged_command.h"

#include "engines/sandbox.h"
#include "engines/tcp_bridge.h"

namespace zest::engines {

Result<LaunchCommand> BridgedCommand(const EngineLocation& engine, const LaunchSpec& spec,
                                     uint16_t port, const std::vector<std::string>& engine_args,
                                     const std::filesystem::path& self_exe) {
  const std::string name = engine.binary.filename().string();
  if (!engine.sandboxed()) {
    return Unavailable(name +
                       " listens on TCP, so zest runs it in a network namespace of its own, "
                       "which needs bubblewrap: apt install bubblewrap");
  }
  // Inner: zest's engine sandbox, sharing the outer's network namespace.
  SandboxMounts mounts;
  mounts.hidden = spec.hidden;
  mounts.readonly = spec.model_files;
  std::vector<std::string> inner = engine.Command(engine_args, mounts, /*own_network=*/false);

  // Outer: the host's files read-only (the bridge is this binary), zest's
  // home hidden, a network namespace of its own; only the socket's
  // directory writable, and the model files bound again in case they lie
  // below the hidden home (the inner bwrap binds them from here).
  SandboxSpec outer;
  outer.bwrap = engine.bwrap;
  outer.view = SandboxView::kHostReadOnly;
  // Kept even as root: the inner bwrap needs them to build the engine's
  // sandbox, which drops them.
  outer.drop_capabilities = false;
  outer.mounts.hidden = spec.hidden;
  outer.mounts.writable = {spec.socket.parent_path()};
  outer.mounts.readonly = spec.model_files;

  LaunchCommand command;
  command.argv = SandboxCommand(outer);
  const std::vector<std::string> bridge = BridgeCommand(self_exe, spec.socket, port);
  command.argv.insert(command.argv.end(), bridge.begin(), bridge.end());
  command.argv.insert(command.argv.end(), inner.begin(), inner.end());
  command.env = engine.Environment();
  return command;
}

}  // namespace zest::engines
