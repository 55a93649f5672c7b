#include "api/ollama/ollama_models.h"

#include <openssl/sha.h>

#include <cstdio>
#include <ctime>

#include "models/capabilities.h"
#include "placement/devices.h"

namespace zest::api::ollama {

using nlohmann::json;

namespace {

constexpr std::string_view kLatest = ":latest";

}  // namespace

std::string OllamaName(const std::string& zest_name) {
  // A tag is what follows the last ':' after the last '/'.
  const std::size_t slash = zest_name.rfind('/');
  const std::size_t colon = zest_name.rfind(':');
  const bool tagged = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  return tagged ? zest_name : zest_name + std::string(kLatest);
}

std::string ZestName(std::string_view ollama_name) {
  if (ollama_name.ends_with(kLatest)) ollama_name.remove_suffix(kLatest.size());
  return std::string(ollama_name);
}

std::string ParameterSize(uint64_t parameters) {
  char text[32];
  if (parameters >= 1'000'000'000) {
    std::snprintf(text, sizeof text, "%.1fB", static_cast<double>(parameters) / 1e9);
  } else if (parameters >= 1'000'000) {
    std::snprintf(text, sizeof text, "%.1fM", static_cast<double>(parameters) / 1e6);
  } else {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(parameters));
  }
  return text;
}

json Details(const models::ModelEntry& model) {
  const std::string format = model.info.speech ? "ggml" : model.info.image ? "safetensors" : "gguf";
  return {{"parent_model", ""},
          {"format", format},
          {"family", model.info.architecture},
          {"families", json::array({model.info.architecture})},
          {"parameter_size", ParameterSize(model.info.parameter_count)},
          {"quantization_level", model.info.file_type}};
}

std::string Digest(const models::ModelEntry& model) {
  const std::string identity = model.path.string() + "\n" + std::to_string(model.info.file_size) +
                               "\n" + std::to_string(model.created);
  unsigned char hash[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(identity.data()), identity.size(), hash);
  std::string hex;
  char byte[3];
  for (unsigned char b : hash) {
    std::snprintf(byte, sizeof byte, "%02x", b);
    hex += byte;
  }
  return hex;
}

std::string Rfc3339(int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

json TagsEntry(const models::ModelEntry& model) {
  const std::string name = OllamaName(model.name);
  return {{"name", name},
          {"model", name},
          {"modified_at", Rfc3339(model.created)},
          {"size", model.info.file_size},
          {"digest", Digest(model)},
          {"details", Details(model)}};
}

json PsEntry(const models::ModelEntry& model, const scheduler::InstanceStatus& instance,
             std::optional<int64_t> expires_at) {
  uint64_t on_devices = 0;  // GPUs and the NPU: Ollama's "VRAM"
  for (const placement::DeviceUse& use : instance.plan.memory) {
    if (use.device != placement::kCpuDevice) on_devices += use.memory.Total();
  }
  const std::string name = OllamaName(model.name);
  json out = {{"name", name},
              {"model", name},
              {"size", instance.plan.TotalBytes()},
              {"digest", Digest(model)},
              {"details", Details(model)},
              {"expires_at", expires_at ? json(Rfc3339(*expires_at)) : json(nullptr)},
              {"size_vram", on_devices},
              {"context_length", instance.plan.ctx_per_slot}};
  return out;
}

json ShowJson(const models::ModelEntry& model, const json& metadata) {
  std::string chat_template;
  json model_info = json::object();
  for (const auto& [key, value] : metadata.items()) {
    if (key == "tokenizer.chat_template") {
      if (value.is_string()) chat_template = value.get<std::string>();
      continue;
    }
    model_info[key] = value;
  }
  json show = {
      {"modelfile", "# zest serves " + model.path.string() + "\nFROM " + model.path.string()},
      {"parameters", ""},
      {"template", chat_template},
      {"details", Details(model)},
      {"model_info", model_info},
      {"capabilities", models::Capabilities(model)},
      {"modified_at", Rfc3339(model.created)}};
  if (model.preset) {  // made with /api/create: its Modelfile as Ollama writes one
    const models::ModelPreset& preset = *model.preset;
    std::string modelfile = "FROM " + preset.from + "\n";
    if (!preset.system.empty()) modelfile += "SYSTEM \"\"\"" + preset.system + "\"\"\"\n";
    std::string parameters;  // "name value" lines, as Ollama shows them
    for (const auto& [key, value] : preset.parameters.items()) {
      for (const json& one : value.is_array() ? value : json::array({value})) {
        const std::string line =
            key + " " + (one.is_string() ? one.get<std::string>() : one.dump());
        parameters += line + "\n";
        modelfile += "PARAMETER " + line + "\n";
      }
    }
    show["modelfile"] = modelfile;
    show["parameters"] = parameters;
    show["system"] = preset.system;
  }
  return show;
}

}  // namespace zest::api::ollama
