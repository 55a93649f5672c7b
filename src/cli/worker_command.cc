// `zest worker --host ADDR --port PORT`: this machine as a ggml RPC worker
// for a head zest's `[rpc] workers` (app/rpc_worker.h).
#include <cstdio>

#include "app/rpc_worker.h"
#include "cli/commands.h"
#include "config/settings.h"

namespace zest::cli {

void AddWorkerCommand(CLI::App& app, Action* action) {
  auto* worker = app.add_subcommand(
      "worker",
      "Serve this machine's memory and compute to a head zest over ggml's RPC (no "
      "authentication: private networks only)");
  auto options = std::make_shared<app::WorkerOptions>();
  worker->add_option("--host", options->host,
                     "Address to listen on: loopback or a private network's (default 127.0.0.1)");
  worker->add_option("--port", options->port, "Port to listen on (default 50052)");
  worker->add_option("--threads", options->threads, "CPU threads (default: every physical core)");
  worker->add_option(
      "--device", options->device,
      "Device to serve, as llama-server names it (default: the first GPU, else CPU)");
  worker->add_flag("--cache", options->cache,
                   "Keep received model tensors on disk, so a reload sends only their hashes");
  worker->add_flag("--insecure", options->insecure,
                   "Listen on a wildcard or public address anyway");
  worker->callback([action, options] {
    *action = [options] {
      auto loaded = config::LoadSettings({config::ProcessEnv, {}, std::nullopt});
      if (!loaded.ok()) {
        std::fprintf(stderr, "zest: %s\n", loaded.status().message().c_str());
        return 2;
      }
      return app::RunRpcWorker(loaded->settings, *options);
    };
  });
}

}  // namespace zest::cli
