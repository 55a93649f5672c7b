#include "api/model_preset.h"

#include "api/ollama/ollama_chat.h"

namespace zest::api {

using nlohmann::json;

void ApplyPreset(models::ModelEntry& model, json& body) {
  if (!model.preset) return;
  const models::ModelPreset preset = std::move(*model.preset);
  model.preset.reset();
  model.name = preset.from;
  // Its options as request fields, as Ollama's chat maps them (checked
  // when the preset was made), where the request sets none.
  json defaults = json::object();
  if (!ollama::OptionsAsRequestFields(preset.parameters, defaults).ok()) defaults.clear();
  for (const auto& [key, value] : defaults.items()) {
    if (!body.contains(key)) body[key] = value;
  }
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array()) return;  // a completion: no turns
  json out = json::array();
  const bool has_system = !messages->empty() && (*messages)[0].is_object() &&
                          (*messages)[0].value("role", "") == "system";
  if (!preset.system.empty() && !has_system) {
    out.push_back({{"role", "system"}, {"content", preset.system}});
  }
  std::size_t next = 0;
  if (has_system) out.push_back((*messages)[next++]);
  if (preset.messages.is_array()) {
    for (const json& m : preset.messages) out.push_back(m);
  }
  for (; next < messages->size(); ++next) out.push_back((*messages)[next]);
  *messages = std::move(out);
}

}  // namespace zest::api
