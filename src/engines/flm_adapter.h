// FlmAdapter: FastFlowLM (`flm serve TAG`) on an AMD NPU. It listens on TCP
// only, so it runs in a network namespace of its own behind zest's engine
// bridge (flm_command.h, tcp_bridge.h); it knows a model by its own tag
// (the relay swaps names), has no slot files and no /health, and serves
// chat and text completions. Its memory is not llama.cpp's: the ledger does
// not learn from it.
#pragma once

#include "engines/engine_adapter.h"
#include "engines/recipe_verdicts.h"

namespace zest::engines {

struct FlmSetup {
  Result<std::filesystem::path> flm = NotFound("FastFlowLM (flm) is not installed");
  std::string source = "system";         // "configured" when the settings named it
  std::filesystem::path self_exe;        // this binary, run as `zest engine-bridge`
  std::filesystem::path bwrap;           // empty = "bwrap" by name
  std::vector<std::string> environment;  // its whole environment (FlmEnvironment)
};

class FlmAdapter : public EngineAdapter {
 public:
  explicit FlmAdapter(FlmSetup setup) : setup_(std::move(setup)) {}

  const char* name() const override { return "flm"; }
  const char* recipe() const override { return kFlmRecipe; }
  Status Available() const override { return setup_.flm.status(); }
  Result<LaunchCommand> Command(const LaunchSpec& spec) const override;
  const char* ready_path() const override;
  // Not probed: its NPU check (`flm validate`) takes seconds and the NPU
  // may be busy. Its device is the NPU.
  EngineDescription Describe(const Result<EngineInfo>* probed) const override;
  std::optional<std::string> PathFor(Capability capability) const override;
  std::string EngineModelName(const LaunchSpec& spec) const override {
    return spec.engine_checkpoint;
  }

  const Result<std::filesystem::path>& binary() const { return setup_.flm; }

 private:
  const FlmSetup setup_;
};

}  // namespace zest::engines
