// `zest haproxy-config --listen ADDR:PORT --node ADDR:PORT [--node ...]`:
// prints haproxy.cfg for zest nodes behind HAProxy (haproxy_config.h).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/haproxy_config.h"

namespace zest::cli {

void AddHaproxyConfigCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<HaproxyOptions>();
  options->version = ZEST_VERSION;
  auto* cmd = app.add_subcommand(
      "haproxy-config",
      "Print an haproxy.cfg that spreads models over zest nodes (docs/scale-out.md)");
  cmd->add_option("--listen", options->listen, "Address HAProxy listens on (ADDR:PORT)")
      ->required();
  cmd->add_option("--node", options->nodes, "A zest node (ADDR:PORT; repeatable)")->required();
  cmd->add_option("--tls", options->tls_pem,
                  "Serve HTTPS with this PEM file (certificate chain and key together)");
  cmd->add_option("--maxconn", options->maxconn_per_node,
                  "Requests at once per node; HAProxy queues the rest")
      ->capture_default_str();
  cmd->callback([action, options] {
    *action = [options] {
      Result<std::string> config = HaproxyConfig(*options);
      if (!config.ok()) {
        std::fprintf(stderr, "zest haproxy-config: %s\n", config.status().message().c_str());
        return 2;
      }
      std::fputs(config->c_str(), stdout);
      return 0;
    };
  });
}

}  // namespace zest::cli
