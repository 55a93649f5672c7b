#include "app/engine_search.h"

#include <system_error>

#include "config/settings.h"

namespace zest::app {

engines::EngineSearch EngineSearchFor(const config::Settings& s) {
  engines::EngineSearch search;
  search.llama_server = s.llama_server;
  search.whisper_server = s.whisper_server;
  search.sd_server = s.sd_server;
  search.llama_tts = s.llama_tts;
  search.flm = s.flm;
  search.path_env = config::ProcessEnv("PATH").value_or("");
  search.rootfs = s.engine_rootfs;
  if (auto tmp = config::ProcessEnv("TMPDIR"); tmp && !tmp->empty()) search.tmp_dir = *tmp;
  search.getenv = config::ProcessEnv;
  search.max_audio_s = s.max_audio_s;
  std::error_code ec;
  // TCP-only engines run behind `zest engine-bridge`: this binary.
  search.self_exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return search;
}

}  // namespace zest::app
