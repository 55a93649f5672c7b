#include "models/preset_load_options.h"

#include <array>
#include <string_view>

namespace zest::models {
namespace {

// Load options a preset may set. The others Ollama applies at load
// (num_ctx, num_gpu, ...) stay the model's own (`zest load`, config.toml):
// a preset shares its base's engine unless it drafts differently.
constexpr std::array<std::string_view, 4> kLoadOptions = {"draft", "speculative", "draft_max",
                                                          "draft_min"};

}  // namespace

bool HasLoadOptions(const ModelPreset& preset) {
  if (!preset.parameters.is_object()) return false;
  for (std::string_view key : kLoadOptions) {
    auto it = preset.parameters.find(key);
    if (it != preset.parameters.end() && !it->is_null()) return true;
  }
  return false;
}

Result<config::ModelSettings> WithLoadOptions(const nlohmann::json& parameters,
                                              config::ModelSettings base) {
  if (!parameters.is_object()) return base;
  for (std::string_view key : kLoadOptions) {
    auto it = parameters.find(key);
    if (it == parameters.end() || it->is_null()) continue;
    config::OptionValue value;
    if (it->is_string()) {
      value = it->get<std::string>();
    } else if (it->is_number_integer()) {
      value = it->get<int64_t>();
    } else {
      return InvalidArgument("parameters." + std::string(key) + ": expected " +
                             (key == "draft" || key == "speculative" ? "a string" : "an integer"));
    }
    if (Status set = config::SetModelOption(base, key, value); !set.ok()) {
      return InvalidArgument("parameters." + std::string(key) + ": " + set.message());
    }
  }
  return base;
}

}  // namespace zest::models
