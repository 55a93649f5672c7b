#include <cstdio>

#include "app/server_app.h"
#include "cli/commands.h"
#include "config/settings.h"

namespace zest::cli {
namespace {

// Command-line flags of `zest serve`, by setting key.
struct ServeFlag {
  const char* flag;
  const char* key;
  const char* help;
};

constexpr ServeFlag kServeFlags[] = {
    {"--host", "server.host", "Address to listen on (default 127.0.0.1)"},
    {"--port", "server.port", "Port to listen on (default 9378)"},
    {"--models-dir", "models.dir", "Directory of .gguf models (default $ZEST_HOME/models)"},
    {"--ctx-size", "engine.ctx_size", "Context length per engine instance"},
    {"--parallel", "engine.parallel", "Parallel slots per engine instance"},
    {"--threads", "engine.threads", "CPU threads per engine (0 = engine default)"},
    {"--llama-server", "engine.llama_server", "Path to a llama-server binary to use"},
    {"--max-body-bytes", "server.max_body_bytes", "Largest accepted request body"},
    {"--max-queue", "scheduler.max_queue", "Requests that may wait per model (then 429)"},
    {"--queue-timeout", "scheduler.queue_timeout_s",
     "Seconds a request may wait for a slot (then 503)"},
    {"--keep-alive", "scheduler.keep_alive",
     "How long an idle model stays loaded: 10m, 1h, 0 (unload at once), -1 (forever)"},
    {"--log-level", "log.level", "trace, debug, info, warn or error"},
    {"--memory-limit", "placement.memory_limit",
     "RAM zest may fill with engines, e.g. 8G (default: what is available)"},
    {"--api-key", "server.api_key", "A single API key (admin scope); also ZEST_API_KEY"},
    {"--tls-cert", "server.tls_cert", "PEM certificate chain: serve HTTPS (with --tls-key)"},
    {"--tls-key", "server.tls_key", "PEM private key of --tls-cert"},
    {"--https-redirect-port", "server.https_redirect_port",
     "With TLS: also listen for plain HTTP on this port and redirect every request to HTTPS"},
    {"--cors-origins", "server.cors_origins",
     "Web origins allowed besides loopback (comma-separated)"},
    {"--max-connections-per-client", "server.max_connections_per_client",
     "Open connections per client address (0 = unlimited)"},
    {"--max-connections", "server.max_connections", "Open connections in all (0 = unlimited)"},
    {"--allowed-hosts", "server.allowed_hosts",
     "Host names served besides loopback, addresses and this machine's name (comma-separated)"},
    {"--log-format", "log.format", "text (default) or json: one JSON object per line"},
    {"--split-prefill-tokens", "scheduler.split_prefill_tokens",
     "Experimental: prompts of this many tokens prefill on another instance of the model (0 = "
     "off)"},
};

}  // namespace

void AddServeCommand(CLI::App& app, Action* action) {
  auto* serve = app.add_subcommand("serve", "Run the zest server");
  auto values = std::make_shared<std::map<std::string, std::string>>();
  for (const ServeFlag& f : kServeFlags) {
    serve->add_option_function<std::string>(
        f.flag, [values, key = f.key](const std::string& v) { (*values)[key] = v; }, f.help);
  }
  serve->add_option_function<std::vector<std::string>>(
      "--rpc-worker",
      [values](const std::vector<std::string>& workers) {
        std::string joined;
        for (const std::string& w : workers) joined += (joined.empty() ? "" : ",") + w;
        (*values)["rpc.workers"] = joined;
      },
      "HOST:PORT of a `zest worker` a model too large for this machine may be spread over "
      "(repeat for more)");
  serve->add_flag_callback(
      "--insecure-no-auth", [values] { (*values)["server.insecure_no_auth"] = "true"; },
      "Allow a non-loopback --host without API keys");
  auto config_file = std::make_shared<std::string>();
  serve->add_option("--config", *config_file, "Config file (default $ZEST_HOME/config.toml)");
  serve->callback([action, values, config_file] {
    *action = [values, config_file] {
      config::LoadInputs inputs{config::ProcessEnv, *values, std::nullopt};
      if (!config_file->empty()) inputs.config_file = *config_file;
      auto loaded = config::LoadSettings(inputs);
      if (!loaded.ok()) {
        std::fprintf(stderr, "zest: %s\n", loaded.status().message().c_str());
        return 2;
      }
      return app::RunServer(*loaded);
    };
  });
}

}  // namespace zest::cli
