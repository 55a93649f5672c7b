#include "engines/sd_server_adapter.h"

#include <nlohmann/json.hpp>

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
  d.notes = {"loads diffusion models in safetensors (SD 1.x/2.x, SDXL, SD3, Flux)",
             setup_.converts_images
                 ? "makes PNG; zest converts to jpeg and webp with ffmpeg"
                 : "makes PNG; jpeg and webp are refused (install ffmpeg and zest converts them)"};
  return d;
}

// sd-server's OpenAI route takes OpenAI's fields as they are; `size` is
// "WxH" and left out for the model's default. Always PNG (ImageJob).
Result<EngineCall> SdServerAdapter::ImageCall(const ImageJob& job) const {
  nlohmann::json body = {{"prompt", job.prompt}, {"n", job.n}, {"output_format", "png"}};
  if (job.width > 0 && job.height > 0) {
    body["size"] = std::to_string(job.width) + "x" + std::to_string(job.height);
  }
  return EngineCall{"/v1/images/generations", "application/json", body.dump()};
}

// 200: {created, output_format, data: [{b64_json}]}; a job it refuses: 400
// {"error": "why"}; a failed generation: 500 {"error", "message"}. Fields
// of another type than these are read as absent, never thrown on.
Result<GeneratedImages> SdServerAdapter::ReadImages(int status, std::string_view body) const {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  auto text = [&j](const char* key) {
    auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string error = text("error");
  if (!text("message").empty()) error += ": " + text("message");
  if (status == 400) return InvalidArgument("sd-server refused the request: " + error);
  if (status != 200) {
    return EngineFailed("sd-server answered " + std::to_string(status) + ": " +
                        (error.empty() ? std::string(body.substr(0, 200)) : error));
  }
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
    return EngineFailed("sd-server's answer has no images");
  }
  GeneratedImages images;
  images.output_format = text("output_format").empty() ? "png" : text("output_format");
  for (const nlohmann::json& item : j["data"]) {
    if (item.is_object() && item.contains("b64_json") && item["b64_json"].is_string()) {
      images.b64.push_back(item["b64_json"].get<std::string>());
    }
  }
  if (images.b64.empty()) return EngineFailed("sd-server made no image");
  return images;
}

}  // namespace zest::engines
