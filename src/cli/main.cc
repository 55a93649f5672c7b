// zest: a local AI server. `zest serve` runs it; the other subcommands talk
// to a running server over its HTTP API.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/commands.h"

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"zest: OpenAI-compatible local AI server running llama.cpp engines", "zest"};
  app.set_version_flag("-v,--version", std::string("zest ") + ZEST_VERSION);
  app.require_subcommand(1);
  app.footer("Clients find the server at $ZEST_HOST (default http://127.0.0.1:9378).");

  zest::cli::Action action;
  zest::cli::AddServeCommand(app, &action);
  zest::cli::AddRunCommand(app, &action);
  zest::cli::AddPullCommand(app, &action);
  zest::cli::AddClientCommands(app, &action);
  zest::cli::AddLoadCommands(app, &action);
  zest::cli::AddSystemCommand(app, &action);
  zest::cli::AddKeysCommand(app, &action);
  zest::cli::AddCertCommand(app, &action);
  zest::cli::AddLogsCommand(app, &action);
  zest::cli::AddTopCommand(app, &action);
  zest::cli::AddHaproxyConfigCommand(app, &action);
  zest::cli::AddSyncCommand(app, &action);
  zest::cli::AddLaunchCommand(app, &action);
  zest::cli::AddWorkerCommand(app, &action);
  zest::cli::AddEngineBridgeCommand(app, &action);
  zest::cli::AddTtsEngineCommand(app, &action);
  CLI11_PARSE(app, argc, argv);

  // No curl_global_init: libcurl is loaded when first used
  // (models/curl_library.h), and curl_easy_init initialises it then
  // (thread-safe since libcurl 7.84).
  return action ? action() : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {  // last resort: a bug, reported rather than aborting
    std::fprintf(stderr, "zest: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "zest: internal error\n");
  }
  return 1;
}
