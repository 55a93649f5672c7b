// `zest tts-engine --socket PATH --work-dir DIR -- COMMAND...`: not for
// users (hidden from --help). zest runs itself this way as a speech-out
// model's engine instance, which runs llama-tts once per request
// (engines/tts_server.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engines/tts_server.h"

namespace zest::cli {

void AddTtsEngineCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<engines::TtsServerOptions>();
  auto socket = std::make_shared<std::string>();
  auto work_dir = std::make_shared<std::string>();
  auto outetts = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("tts-engine", "Serve a speech-out model with llama-tts");
  cmd->group("");  // hidden
  cmd->add_option("--socket", *socket, "UNIX socket to create")->required();
  cmd->add_option("--work-dir", *work_dir, "where each run's private directory goes")->required();
  cmd->add_option("--outetts", *outetts, "an OuteTTS model's two llama-servers, as JSON");
  cmd->add_option("command", options->command, "llama-tts's command line (after --)");
  cmd->callback([action, options, socket, work_dir, outetts] {
    *action = [options, socket, work_dir, outetts] {
      options->socket = *socket;
      options->work_dir = *work_dir;
      if (!outetts->empty()) {
        Result<engines::OuteTtsServers> servers = engines::ParseOuteTtsServers(*outetts);
        if (!servers.ok()) {
          std::fprintf(stderr, "zest tts-engine: %s\n", servers.status().message().c_str());
          return 2;
        }
        options->outetts = std::move(*servers);
      } else if (options->command.empty()) {
        std::fprintf(stderr, "zest tts-engine: a llama-tts command (after --) or --outetts\n");
        return 2;
      }
      return engines::RunTtsServer(*options);
    };
  });
}

}  // namespace zest::cli
