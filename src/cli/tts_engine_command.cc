// `zest tts-engine --socket PATH --work-dir DIR -- COMMAND...`: not for
// users (hidden from --help). zest runs itself this way as a speech-out
// model's engine instance, which runs llama-tts once per request
// (engines/tts_server.h).
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
  CLI::App* cmd = app.add_subcommand("tts-engine", "Serve a speech-out model with llama-tts");
  cmd->group("");  // hidden
  cmd->add_option("--socket", *socket, "UNIX socket to create")->required();
  cmd->add_option("--work-dir", *work_dir, "where each run's private directory goes")->required();
  cmd->add_option("command", options->command, "llama-tts's command line (after --)")->required();
  cmd->callback([action, options, socket, work_dir] {
    *action = [options, socket, work_dir] {
      options->socket = *socket;
      options->work_dir = *work_dir;
      return engines::RunTtsServer(*options);
    };
  });
}

}  // namespace zest::cli
