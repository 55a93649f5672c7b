// WhisperAdapter: whisper.cpp's whisper-server, for speech to text. It
// listens on TCP only, so it runs behind zest's engine bridge
// (tcp_bridge.h) in a network namespace of its own: an outer bubblewrap
// with that namespace runs `zest engine-bridge`, which starts whisper-server
// in zest's usual engine sandbox (sandbox.h, sharing the outer's network),
// so whisper-server's port exists nowhere else. It serves one inference at
// a time (one slot), at /inference, multipart; it has no slot files, and
// the relay passes the model name through untouched (it ignores it).
#pragma once

#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/recipe_verdicts.h"

namespace zest::engines {

// whisper-server's port, alone in its network namespace: never taken.
inline constexpr uint16_t kWhisperPort = 8178;

struct WhisperSetup {
  Result<EngineLocation> located = NotFound("whisper-server is not installed");
  std::filesystem::path self_exe;  // this binary, run as `zest engine-bridge`
  bool converts_audio = false;     // zest converts other formats (audio_converter.h)
};

class WhisperAdapter : public EngineAdapter {
 public:
  explicit WhisperAdapter(WhisperSetup setup) : setup_(std::move(setup)) {}

  const char* name() const override { return "whisper-server"; }
  const char* recipe() const override { return kWhisperRecipe; }
  Status Available() const override { return setup_.located.status(); }
  Result<LaunchCommand> Command(const LaunchSpec& spec) const override;
  std::optional<std::string> PathFor(Capability capability) const override;
  // verbose_json from /inference, always: the API makes every format
  // (json, text, srt, vtt, verbose_json) from its segments.
  Result<EngineCall> TranscriptionCall(const TranscriptionJob& job) const override;
  Result<Transcript> ReadTranscript(int status, std::string_view body) const override;
  EngineDescription Describe(const Result<EngineInfo>* probed) const override;

  const Result<EngineLocation>& location() const { return setup_.located; }

 private:
  const WhisperSetup setup_;
};

}  // namespace zest::engines
