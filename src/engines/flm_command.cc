#include "engines/flm_command.h"

namespace zest::engines {

std::vector<std::string> FlmCommand(const FlmOptions& o) {
  const std::string port = std::to_string(kFlmPort);
  std::vector<std::string> argv = {o.bwrap.empty() ? "bwrap" : o.bwrap.string(),
                                   "--bind",
                                   "/",
                                   "/",
                                   "--dev-bind",
                                   "/dev",
                                   "/dev",
                                   "--proc",
                                   "/proc",
                                   "--unshare-net",
                                   "--unshare-pid",
                                   "--unshare-ipc",
                                   "--new-session",
                                   "--die-with-parent"};
  for (const auto& dir : o.hidden) argv.insert(argv.end(), {"--tmpfs", dir.string()});
  argv.insert(argv.end(),
              {"--", o.zest.string(), "engine-bridge", "--socket", o.socket.string(), "--port",
               port, "--", o.flm.string(), "serve", o.checkpoint, "--ctx-len",
               std::to_string(o.ctx_len), "--port", port, "--host", "127.0.0.1", "--quiet"});
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
