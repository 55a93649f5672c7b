#include "engines/engine_discovery.h"

#include <spdlog/spdlog.h>

#include "engines/engine_locator.h"
#include "engines/flm_adapter.h"
#include "engines/flm_command.h"
#include "engines/llama_server_adapter.h"
#include "engines/llama_server_flags.h"
#include "engines/llama_tts_adapter.h"
#include "engines/sd_server_adapter.h"
#include "engines/whisper_adapter.h"

namespace zest::engines {
namespace {

Result<EngineLocation> Locate(const EngineSearch& search, const std::filesystem::path& configured,
                              const char* binary_name) {
  LocateOptions options{configured,    search.path_env,
                        search.rootfs, EngineEnvironment(search.getenv, {}),
                        binary_name,   {}};
  return LocateEngine(options);
}

void LogLocation(const Result<EngineLocation>& located, const char* what) {
  if (!located.ok()) {
    spdlog::warn("no {}: {}", what, located.status().message());
    return;
  }
  spdlog::info("engine: {} ({}) {}{}", located->binary.filename().string(),
               EngineSourceName(located->source), located->binary.string(),
               located->rootfs.empty() ? "" : " in " + located->rootfs.string());
  if (located->sandboxed()) {
    spdlog::info("engine sandbox: {}", located->SandboxNote());
  } else {
    spdlog::warn("engine sandbox: {}", located->SandboxNote());
  }
}

}  // namespace

std::shared_ptr<const EngineSet> DiscoverEngines(const EngineSearch& search) {
  Result<EngineLocation> llama = Locate(search, search.llama_server, "llama-server");
  Result<EngineLocation> whisper = Locate(search, search.whisper_server, "whisper-server");
  Result<EngineLocation> sd = Locate(search, search.sd_server, "sd-server");
  Result<EngineLocation> tts = Locate(search, search.llama_tts, "llama-tts");
  if (search.log) {
    LogLocation(llama, "engine for language models");
    LogLocation(whisper, "speech-to-text engine");
    if (sd.ok() || !search.sd_server.empty()) LogLocation(sd, "image engine");
    LogLocation(tts, "text-to-speech engine");
  }

  // FastFlowLM listens on TCP only: it runs behind `zest engine-bridge`,
  // in a bwrap of the host's filesystem (the one llama-server's sandbox uses).
  FlmSetup flm;
  flm.flm = LocateFlm(search.flm, search.path_env);
  flm.source = search.flm.empty() ? "system" : "configured";
  flm.self_exe = search.self_exe;
  if (llama.ok()) flm.bwrap = llama->bwrap;
  flm.environment = FlmEnvironment(search.getenv);
  if (search.log && flm.flm.ok()) {
    spdlog::info("engine: flm (FastFlowLM, for the NPU) {}", flm.flm->string());
  }

  // ffmpeg converts the uploads whisper-server does not decode, and the
  // image engine's PNGs into the formats clients ask for.
  FfmpegSetup ffmpeg_setup;
  ffmpeg_setup.ffmpeg = Locate(search, "", "ffmpeg");
  ffmpeg_setup.ffprobe = Locate(search, "", "ffprobe");
  ffmpeg_setup.work_root = search.tmp_dir;
  auto ffmpeg = std::make_shared<const Ffmpeg>(std::move(ffmpeg_setup));
  auto converter = std::make_unique<AudioConverter>(ffmpeg, search.max_audio_s);
  auto pictures = std::make_unique<ImageConverter>(ffmpeg);
  if (search.log) spdlog::info("audio and image conversion: {}", ffmpeg->Describe());

  WhisperSetup speech;
  speech.located = std::move(whisper);
  speech.self_exe = search.self_exe;
  speech.converts_audio = converter->Available().ok();
  SdServerSetup images;
  images.located = std::move(sd);
  images.self_exe = search.self_exe;
  images.converts_images = pictures->Available().ok();
  LlamaTtsSetup speech_out;
  speech_out.located = std::move(tts);
  speech_out.llama_server = llama;  // OuteTTS models run on two llama-servers
  speech_out.self_exe = search.self_exe;
  return std::make_shared<const EngineSet>(
      std::make_unique<LlamaServerAdapter>(std::move(llama)),
      std::make_unique<FlmAdapter>(std::move(flm)),
      std::make_unique<WhisperAdapter>(std::move(speech)),
      std::make_unique<SdServerAdapter>(std::move(images)), std::move(converter),
      std::move(pictures), std::make_unique<LlamaTtsAdapter>(std::move(speech_out)));
}

Status CheckLanguageEngineFlags(const std::vector<std::string>& args) {
  return CheckLlamaServerArgs(args).status();
}

}  // namespace zest::engines
