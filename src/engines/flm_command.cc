#include "engines/flm_command.h"

namespace zest::engines {

std::vector<std::string> FlmCommand(const FlmOptions& o) {
  const std::string port = std::to_string(kFlmPort);
  return {o.bwrap.empty() ? "bwrap" : o.bwrap.string(),
          "--bind", "/", "/",
          "--dev-bind", "/dev", "/dev",
          "--proc", "/proc",
          "--unshare-net",
          "--unshare-pid",
          "--die-with-parent",
          "--",
          o.zest.string(), "engine-bridge", "--socket", o.socket.string(), "--port", port, "--",
          o.flm.string(), "serve", o.checkpoint,
          "--ctx-len", std::to_string(o.ctx_len),
          "--port", port,
          "--host", "127.0.0.1",
          "--quiet"};
}

}  // namespace zest::engines
