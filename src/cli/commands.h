// The `zest` subcommands. Each Add*Command registers a CLI11 subcommand whose
// callback stores the action in `*action`; main() runs it after parsing and
// exits with its result. Everything but `serve` talks to a running server.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zest::cli {

using Action = std::function<int()>;

void AddServeCommand(CLI::App& app, Action* action);
void AddRunCommand(CLI::App& app, Action* action);
void AddPullCommand(CLI::App& app, Action* action);
void AddClientCommands(CLI::App& app, Action* action);  // list, ps, stop, engines, config, add
void AddLoadCommands(CLI::App& app, Action* action);    // load, unload
void AddSystemCommand(CLI::App& app, Action* action);   // system [--json] [--watch]
void AddKeysCommand(CLI::App& app, Action* action);     // keys add|list|rm
void AddCertCommand(CLI::App& app, Action* action);     // cert (local CA + server certificate)
void AddLogsCommand(CLI::App& app, Action* action);     // logs [MODEL] [-f] [-n N]
void AddTopCommand(CLI::App& app, Action* action);      // top
void AddHaproxyConfigCommand(CLI::App& app, Action* action);  // haproxy-config (scale-out)
void AddSyncCommand(CLI::App& app, Action* action);           // sync (the cluster manifest)
void AddLaunchCommand(CLI::App& app, Action* action);         // launch AGENT (coding agents)
void AddWorkerCommand(CLI::App& app, Action* action);         // worker (ggml RPC, scale-out)
void AddEngineBridgeCommand(CLI::App& app, Action* action);   // engine-bridge (zest's own use)
void AddTtsEngineCommand(CLI::App& app, Action* action);      // tts-engine (zest's own use)

}  // namespace zest::cli
