#include "engines/bridged_command.h"

#include <unistd.h>

#include "engines/sandbox.h"
#include "engines/tcp_bridge.h"

namespace zest::engines {

SandboxSpec BridgeSandbox(const EngineLocation& engine, const LaunchSpec& spec,
                          const std::filesystem::path& self_exe) {
  // The host's system files read-only, the bridge (this binary's file
  // alone) and what the engine's bwrap binds from here: its rootfs or build
  // tree and the model files, read-only (again, in case they lie below the
  // hidden home); writable only the socket's directory. A network namespace
  // of its own, and as root one capability, CAP_SYS_ADMIN, which the inner
  // bwrap needs to mount and unshare; the bridge drops it once that bwrap
  // is started (tcp_bridge.h), and the engine's sandbox drops all.
  SandboxSpec outer;
  outer.bwrap = engine.bwrap;
  outer.view = SandboxView::kSystemFiles;
  outer.drop_capabilities = geteuid() == 0;
  outer.keep_capabilities = {"CAP_SYS_ADMIN"};
  outer.mounts.hidden = spec.hidden;
  outer.mounts.writable = {spec.socket.parent_path()};
  outer.mounts.readonly = spec.model_files;
  // The engine's bwrap binds each model file from its resolved path (a Hugging
  // Face snapshot link's blob), which must exist in here too.
  for (const std::filesystem::path& file : spec.model_files) {
    std::error_code ec;
    std::filesystem::path resolved = std::filesystem::canonical(file, ec);
    if (!ec && resolved != file) outer.mounts.readonly.push_back(resolved);
  }
  if (!self_exe.empty()) outer.mounts.readonly.push_back(self_exe);
  if (!engine.rootfs.empty()) {
    outer.mounts.readonly.push_back(engine.rootfs);
  } else {
    // Its build tree, bound before the socket's directory (SandboxCommand's
    // order), which may lie below it (a tree in /tmp).
    outer.binary = engine.binary;
  }
  return outer;
}

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

  LaunchCommand command;
  command.argv = SandboxCommand(BridgeSandbox(engine, spec, self_exe));
  const std::vector<std::string> bridge = BridgeCommand(self_exe, spec.socket, port);
  command.argv.insert(command.argv.end(), bridge.begin(), bridge.end());
  command.argv.insert(command.argv.end(), inner.begin(), inner.end());
  command.env = engine.Environment();
  return command;
}

}  // namespace zest::engines
