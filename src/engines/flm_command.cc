#include "engines/flm_command.h"

#include "engines/sandbox.h"
#include "engines/tcp_bridge.h"

namespace zest::engines {

std::vector<std::string> FlmCommand(const FlmOptions& o) {
  SandboxSpec sandbox;
  sandbox.bwrap = o.bwrap;
  sandbox.view = SandboxView::kHostWritable;
  // Not dropped even as root: FastFlowLM has always run with root's
  // capabilities there, and with no NPU here nothing can show that its
  // runtime works without them.
  sandbox.drop_capabilities = false;
  sandbox.mounts.hidden = o.hidden;
  std::vector<std::string> argv = SandboxCommand(sandbox);
  const std::vector<std::string> bridge = BridgeCommand(o.zest, o.socket, kFlmPort);
  argv.insert(argv.end(), bridge.begin(), bridge.end());
  const std::string port = std::to_string(kFlmPort);
  argv.insert(argv.end(),
              {o.flm.string(), "serve", o.checkpoint, "--ctx-len", std::to_string(o.ctx_len),
               "--port", port, "--host", "127.0.0.1", "--quiet"});
  return argv;
}

std::vector<std::string> FlmEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  std::vector<std::string> env;
  for (const char* name : {"HOME", "USER", "LOGNAME", "PATH", "LANG", "LC_ALL", "XDG_CONFIG_HOME",
                           "XDG_DATA_HOME", "XDG_CACHE_HOME", "XILINX_XRT"}) {
    if (auto value = getenv(name)) env.push_back(std::string(name) + "=" + *value);
  }
  return env;
}

}  // namespace zest::engines
