// TtsServer: `zest tts-engine`, how zest serves a speech-out model. llama-tts
// is a command-line tool: it loads the model, writes one WAV file and exits.
// So zest runs this small server as the model's engine instance (in the
// same outer sandbox as the bridge of a TCP-only engine, bridged_command.h),
// and it runs llama-tts, in zest's usual engine sandbox, once per request.
// The instance pool, admission, the memory ledger, keep-alive and the relay
// then treat speech-out models as they treat every other engine.
//
// On its UNIX socket it answers GET /health, and POST /speech with a JSON
// body {"input", "n_predict", "timeout_s"} with the WAV
// (audio/wav), or an error {"error": {"message"}}: 400 for a bad request,
// 503 when llama-tts was killed from outside, 504 past the time limit, 500
// when it failed. Each run writes into a private directory (0700, the WAV
// 0600) below the work directory, removed however the run ends; a client
// that closes its connection kills the run. One connection per thread, one
// request per connection.
//
// An OuteTTS 0.2 model (its vocoder a `wavtokenizer-dec` GGUF, which this
// llama-tts no longer runs) is served the other way: `--outetts JSON` names
// two llama-server children, started before the socket is made and killed
// on exit (outetts_engine.h), and no llama-tts command is given.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engines/outetts_engine.h"

namespace zest::engines {

struct TtsServerOptions {
  std::filesystem::path socket;    // created (0600); removed on exit
  std::filesystem::path work_dir;  // each run's private directory goes below it
  // llama-tts with its model flags, in its sandbox (the work directory
  // writable); each run appends -p TEXT -o FILE -n N.
  std::vector<std::string> command;
  // Set: serve an OuteTTS model with these two llama-servers instead.
  std::optional<OuteTtsServers> outetts;
};

// `zest tts-engine --socket S --work-dir D --` (llama-tts's argv follows):
// how a sandbox runs this binary, `zest`, as a speech-out engine.
std::vector<std::string> TtsServerCommand(const std::filesystem::path& zest,
                                          const std::filesystem::path& socket,
                                          const std::filesystem::path& work_dir);

// `zest tts-engine --socket S --work-dir D --outetts JSON`: the same for an
// OuteTTS model's two llama-servers.
std::vector<std::string> OuteTtsServerCommand(const std::filesystem::path& zest,
                                              const std::filesystem::path& socket,
                                              const std::filesystem::path& work_dir,
                                              const OuteTtsServers& servers);

// The argv of one run: `command` with the text, the output file and the
// cap on audio tokens.
std::vector<std::string> TtsRunArgs(const std::vector<std::string>& command,
                                    const std::string& text, const std::filesystem::path& out,
                                    int max_tokens);

// Serves until SIGTERM or SIGINT, then kills the runs in progress (and an
// OuteTTS model's llama-servers); returns 0, or 1 when the socket could not
// be made, the llama-servers did not load, or one of them exited (zest's
// supervisor then restarts the instance). Blocks; meant to be the whole
// process.
int RunTtsServer(const TtsServerOptions& options);

}  // namespace zest::engines
