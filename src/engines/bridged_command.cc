#include "engines/bridged_command.h"

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
  // home hidden, its own network, pid and IPC namespaces; only the socket's
  // directory writable.
  LaunchCommand command;
  command.argv = {engine.bwrap.empty() ? std::string("bwrap") : engine.bwrap.string(),
                  "--ro-bind",
                  "/",
                  "/",
                  "--dev",
                  "/dev",
                  "--proc",
                  "/proc",
                  "--unshare-net",
                  "--unshare-pid",
                  "--unshare-ipc",
                  "--new-session",
                  "--die-with-parent"};
  for (const auto& dir : spec.hidden)
    command.argv.insert(command.argv.end(), {"--tmpfs", dir.string()});
  const std::string socket_dir = spec.socket.parent_path().string();
  command.argv.insert(command.argv.end(), {"--bind", socket_dir, socket_dir});
  // The model files again, in case they lie below a hidden directory.
  for (const auto& file : spec.model_files) {
    command.argv.insert(command.argv.end(), {"--ro-bind", file.string(), file.string()});
  }
  const std::string port_text = std::to_string(port);
  command.argv.insert(command.argv.end(), {"--", self_exe.string(), "engine-bridge", "--socket",
                                           spec.socket.string(), "--port", port_text, "--"});
  command.argv.insert(command.argv.end(), inner.begin(), inner.end());
  command.env = engine.Environment();
  return command;
}

}  // namespace zest::engines
