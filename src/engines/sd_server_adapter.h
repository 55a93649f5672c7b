// SdServerAdapter: stable-diffusion.cpp's sd-server, for image generation.
// No Debian package ships it: zest uses it when `engine.sd_server` names a
// binary or one is on PATH. It listens on TCP only, so it runs behind the
// engine bridge like whisper-server (bridged_command.h). It loads one model
// at start (-m), serves OpenAI's /v1/images/generations (b64_json), one
// image job at a time (one slot), and answers GET /v1/models once loaded.
// zest asks it for PNG only, and makes other formats itself
// (image_converter.h).
#pragma once

#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/recipe_verdicts.h"

namespace zest::engines {

// sd-server's port, alone in its network namespace: never taken.
inline constexpr uint16_t kSdServerPort = 8179;

struct SdServerSetup {
  Result<EngineLocation> located = NotFound("sd-server is not installed");
  std::filesystem::path self_exe;  // this binary, run as `zest engine-bridge`
  bool converts_images = false;    // zest makes jpeg and webp itself (image_converter.h)
};

class SdServerAdapter : public EngineAdapter {
 public:
  explicit SdServerAdapter(SdServerSetup setup) : setup_(std::move(setup)) {}

  const char* name() const override { return "sd-server"; }
  const char* recipe() const override { return kSdRecipe; }
  Status Available() const override;
  Result<LaunchCommand> Command(const LaunchSpec& spec) const override;
  // It has no /health; its model list answers once the model is loaded.
  const char* ready_path() const override { return "/v1/models"; }
  std::optional<std::string> PathFor(Capability capability) const override;
  EngineDescription Describe(const Result<EngineInfo>* probed) const override;
  Result<EngineCall> ImageCall(const ImageJob& job) const override;
  Result<GeneratedImages> ReadImages(int status, std::string_view body) const override;

 private:
  const SdServerSetup setup_;
};

}  // namespace zest::engines
