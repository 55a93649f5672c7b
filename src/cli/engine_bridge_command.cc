// `zest engine-bridge --socket PATH --port N -- COMMAND...`: not for users
// (hidden from --help). zest runs itself this way inside an engine's
// network namespace, in front of an engine that only listens on TCP
// (engines/tcp_bridge.h).
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engines/tcp_bridge.h"

namespace zest::cli {

void AddEngineBridgeCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<engines::BridgeOptions>();
  auto socket = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("engine-bridge", "Relay an engine's TCP port to a UNIX socket");
  cmd->group("");  // hidden
  cmd->add_option("--socket", *socket, "UNIX socket to create")->required();
  cmd->add_option("--port", options->port, "the engine's port on 127.0.0.1")->required();
  cmd->add_option("command", options->command, "the engine's command line (after --)")->required();
  cmd->callback([action, options, socket] {
    *action = [options, socket] {
      options->socket = *socket;
      return engines::RunBridge(*options);
    };
  });
}

}  // namespace zest::cli
