#include "engines/sd_server_adapter.h"

#include "engines/bridged_command.h"

namespace zest::engines {

Status SdServerAdapter::Available() const {
  if (setup_.located.ok()) return Status::Ok();
  // Say how to get it: no package here ships it.
  return NotFound(
      "sd-server is not installed: build stable-diffusion.cpp's server "
      "(https://github.com/leejet/stable-diffusion.cpp, examples/server) and set "
      "engine.sd_server (ZEST_SD_SERVER) to it, or put it on PATH");
}

Result<LaunchCommand> SdServerAdapter::Command(const LaunchSpec& spec) const {
  ZEST_RETURN_IF_ERROR(Available());
  ZEST_RETURN_IF_ERROR(CheckExtraArgs(spec.extra_args, spec.model_roots));
  std::vector<std::string> args = {"sd-server",
                                   "--listen-ip",
                                   "127.0.0.1",
                                   "--listen-port",
                                   std::to_string(kSdServerPort),
                                   "-m",
                                   spec.model_file.string()};
  if (spec.threads > 0) args.insert(args.end(), {"-t", std::to_string(spec.threads)});
  return BridgedCommand(*setup_.located, spec, kSdServerPort, args, setup_.self_exe);
}

std::optional<std::string> SdServerAdapter::PathFor(Capability capability) const {
  if (capability == Capability::kImages) return "/v1/images/generations";
  return std::nullopt;
}

EngineDescription SdServerAdapter::Describe(const Result<EngineInfo>* probed) const {
  EngineDescription d = EngineAdapter::Describe(probed);
  d.available = Available();
  DescribeLocation(setup_.located, d);
  if (setup_.located.ok()) d.sandbox += "; behind zest's engine bridge";
  d.notes = {"zest does not route /v1/images/generations to it yet"};
  return d;
}

}  // namespace zest::engines
