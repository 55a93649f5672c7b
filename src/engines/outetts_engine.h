// OuteTtsEngine: how `zest tts-engine` speaks with an OuteTTS 0.2 model and
// its WavTokenizer vocoder (a `wavtokenizer-dec` GGUF), which the rootfs's
// llama-tts no longer runs (its libmtmd rewrite takes Qwen3-TTS and Pocket
// TTS only). Two llama-server children, each on a UNIX socket in the
// engine's work directory: the backbone continues the OuteTTS prompt
// (outetts_prompt.h) with audio codes (POST /completion), the vocoder turns
// codes into STFT frames (POST /embedding), and zest's inverse STFT
// (wavtokenizer_istft.h) makes the samples. The children are owned here and
// killed when this object goes (and, by PR_SET_PDEATHSIG, when the process
// dies). Speak may be called from several threads; llama-server queues.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/process.h"

namespace zest::engines {

// One llama-server child: its argv (sandbox included) and the UNIX socket
// it listens on (its --host).
struct OuteTtsServer {
  std::vector<std::string> argv;
  std::filesystem::path socket;
};

struct OuteTtsServers {
  OuteTtsServer backbone;
  OuteTtsServer vocoder;     // started with --embeddings and -b/-ub = vocoder_batch
  int vocoder_batch = 4096;  // codes per /embedding call (the vocoder is not causal)
  int context = 0;           // the backbone's -c: prompt and codes together; 0 = unknown
};

// The one-argument form `zest tts-engine --outetts JSON` takes, and back.
std::string OuteTtsServersJson(const OuteTtsServers& servers);
Result<OuteTtsServers> ParseOuteTtsServers(std::string_view json);

// What the route answers: a status, its content type and body.
struct TtsReply {
  int status = 200;
  std::string content_type;
  std::string body;
};

class OuteTtsEngine {
 public:
  // Starts both servers and waits until both answer /health, `stopping`
  // aborts the wait; kUnavailable when one exits or `timeout` passes first.
  static Result<std::unique_ptr<OuteTtsEngine>> Start(const OuteTtsServers& servers,
                                                      std::chrono::seconds timeout,
                                                      const std::function<bool()>& stopping);

  // `text` spoken as a 24 kHz mono 16-bit WAV, with at most `max_tokens`
  // tokens from the backbone; 400 for a text without words or one whose
  // prompt and budget overflow the backbone's context, 504 past
  // `timeout_s`, 503 when a child has died. `cancelled` is polled while
  // waiting (a client that left): then the reply is not sent anyway.
  TtsReply Speak(const std::string& text, int max_tokens, int timeout_s,
                 const std::function<bool()>& cancelled);

  // False once either llama-server has exited.
  bool Running() const { return backbone_->Running() && vocoder_->Running(); }

  // How the first llama-server to exit went (its wait status); nullopt
  // while both run.
  std::optional<int> ChildExit() const;

 private:
  OuteTtsEngine(OuteTtsServers servers, std::unique_ptr<Process> backbone,
                std::unique_ptr<Process> vocoder);

  const OuteTtsServers servers_;
  std::unique_ptr<Process> backbone_;
  std::unique_ptr<Process> vocoder_;
};

}  // namespace zest::engines
