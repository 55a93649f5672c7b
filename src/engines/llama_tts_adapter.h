// LlamaTtsAdapter: llama.cpp's llama-tts, for speech out (text to speech)
// with a GGUF backbone and its vocoder, which the libmtmd-based llama-tts
// (build 11669 on) loads as a projector with -mm (Qwen3-TTS, Pocket TTS). llama-tts
// is a command-line tool that loads, writes one WAV and exits, so a
// speech-out model's instance is `zest tts-engine` (tts_server.h) in the
// outer sandbox the bridged engines use (bridged_command.h), which runs
// llama-tts in zest's engine sandbox once per request. One request at a
// time (one slot); no slot files; the relay passes the model name through
// untouched (the request has none).
//
// A model whose vocoder is a `wavtokenizer-dec` GGUF (OuteTTS 0.2 with
// WavTokenizer) is one this llama-tts (the libmtmd rewrite: Qwen3-TTS,
// Pocket TTS) cannot run: its tts-engine runs two llama-servers instead
// (outetts_engine.h), in the same sandboxes.
#pragma once

#include <functional>

#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/outetts_engine.h"

namespace zest::engines {

struct LlamaTtsSetup {
  Result<EngineLocation> located = NotFound("llama-tts is not installed");
  std::filesystem::path self_exe;  // this binary, run as `zest tts-engine`
  // llama-server, for OuteTTS models.
  Result<EngineLocation> llama_server = NotFound("llama-server is not installed");
  // general.architecture of a vocoder GGUF ("" when unreadable); a test seam.
  std::function<std::string(const std::filesystem::path&)> vocoder_architecture;
};

// The vocoder batch (-b/-ub) of an OuteTTS model's vocoder llama-server:
// codes decoded in one piece (75 a second: 54 s).
inline constexpr int kOuteTtsVocoderBatch = 4096;

// An OuteTTS model's two llama-servers (argv before the engine sandbox is
// added): the backbone with the model's context, the vocoder with
// --embeddings and its batch, each on a socket in `work_dir`.
std::vector<std::string> OuteTtsBackboneArgs(const LaunchSpec& spec,
                                             const std::filesystem::path& socket);
std::vector<std::string> OuteTtsVocoderArgs(const LaunchSpec& spec,
                                            const std::filesystem::path& socket);

// Tokens (-n, or the backbone's n_predict) a model may write for `text`:
// enough for the whole text, yet a bound on a model that never ends (random
// weights, or a real one that rambles). The densest codec writes 75 codes a
// second (OuteTTS's WavTokenizer; Qwen3-TTS-12Hz writes 12.5), and a calm
// speaker says about 12 characters a second: 6.25 codes a character, and
// OuteTTS writes about one token more for each character's share of its
// word, duration and code_start/code_end tokens. 10 a character leaves room
// for a slow speaker (9 characters a second), plus a second (75) for the
// pauses at either end. An OuteTTS backbone must also hold this cap after
// its prompt in its context (OuteTtsTooLong).
int SpeechTokenCap(size_t text_chars);

// llama-tts's own argv for a model (the run adds -p, -o and -n): the
// backbone, the vocoder and the thread budget.
std::vector<std::string> LlamaTtsArgs(const LaunchSpec& spec);

class LlamaTtsAdapter : public EngineAdapter {
 public:
  explicit LlamaTtsAdapter(LlamaTtsSetup setup) : setup_(std::move(setup)) {}

  const char* name() const override { return "llama-tts"; }
  const char* recipe() const override { return "llamacpp"; }
  // Either engine serves some speech-out models.
  Status Available() const override {
    return setup_.located.ok() ? setup_.located.status() : setup_.llama_server.status();
  }
  Result<LaunchCommand> Command(const LaunchSpec& spec) const override;
  std::optional<std::string> PathFor(Capability capability) const override;
  Result<EngineCall> SpeechCall(const SpeechJob& job) const override;
  Result<SpeechAudio> ReadSpeech(int status, std::string_view body) const override;
  EngineDescription Describe(const Result<EngineInfo>* probed) const override;

 private:
  bool IsOuteTts(const LaunchSpec& spec) const;
  Result<LaunchCommand> OuteTtsCommand(const LaunchSpec& spec) const;

  const LlamaTtsSetup setup_;
};

}  // namespace zest::engines
