#include "engines/flm_adapter.h"

#include "engines/flm_command.h"

namespace zest::engines {

Result<LaunchCommand> FlmAdapter::Command(const LaunchSpec& spec) const {
  if (!setup_.flm.ok()) return Unavailable("FastFlowLM (flm) is not installed");
  FlmOptions flm;
  flm.flm = *setup_.flm;
  flm.checkpoint = spec.engine_checkpoint;
  flm.ctx_len = spec.ctx_per_slot;
  flm.socket = spec.socket;
  flm.zest = setup_.self_exe;
  flm.bwrap = setup_.bwrap;
  flm.hidden = spec.hidden;
  LaunchCommand command;
  command.argv = FlmCommand(flm);
  command.env = setup_.environment;
  return command;
}

const char* FlmAdapter::ready_path() const { return kFlmReadyPath; }

std::optional<std::string> FlmAdapter::PathFor(Capability capability) const {
  switch (capability) {
    case Capability::kChat:
      return "/v1/chat/completions";
    case Capability::kCompletions:
      return "/v1/completions";
    default:
      return std::nullopt;
  }
}

EngineDescription FlmAdapter::Describe(const Result<EngineInfo>* /*probed*/) const {
  EngineDescription d = EngineAdapter::Describe(nullptr);
  if (!setup_.flm.ok()) return d;
  d.source = setup_.source;
  d.binary = setup_.flm->string();
  d.sandbox = "its own network namespace, behind zest's engine bridge";
  d.devices = {{"NPU", "XDNA2 (`zest system` says if usable)"}};
  return d;
}

}  // namespace zest::engines
