// DiscoverEngines: finds every engine zest can run (llama-server,
// FastFlowLM's flm, whisper-server, sd-server: the configured binary, else
// PATH, else the engine rootfs `make engines` provisions) and makes their adapters
// into the EngineSet the server and `zest system` use. The one place that
// knows which engines exist; it logs what it found.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "engines/engine_set.h"
#include "engines/sandbox.h"

namespace zest::engines {

struct EngineSearch {
  // Binaries the settings name (engine.llama_server, engine.whisper_server,
  // engine.sd_server, engine.flm, engine.llama_tts); empty = search.
  std::filesystem::path llama_server;
  std::filesystem::path whisper_server;
  std::filesystem::path sd_server;
  std::filesystem::path llama_tts;
  std::filesystem::path flm;
  std::string path_env;                    // $PATH
  std::filesystem::path rootfs;            // engine.rootfs
  std::filesystem::path tmp_dir = "/tmp";  // $TMPDIR: ffmpeg's conversions' files go below it
  GetEnv getenv;                           // zest's environment, for the engines' allow-listed part
  std::filesystem::path self_exe;          // this binary, run as `zest engine-bridge`
  int max_audio_s = 1800;                  // the longest audio converted (limits.max_audio_s)
  bool log = true;                         // say what was found (the server; not `zest system`)
};

std::shared_ptr<const EngineSet> DiscoverEngines(const EngineSearch& search);

// Whether `args` may be given to the engine of language models (its flag
// allow-list); the files they name are checked at each engine start.
Status CheckLanguageEngineFlags(const std::vector<std::string>& args);

}  // namespace zest::engines
