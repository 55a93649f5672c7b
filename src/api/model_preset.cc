#include "api/model_preset.h"

namespace zest::api {

using nlohmann::json;

void ApplyPreset(models::ModelEntry& model, json& body) {
  if (!model.preset) return;
  const models::ModelPreset preset = std::move(*model.preset);
  model.preset.reset();
  model.name = preset.from;
  if (preset.defaults.is_object()) {
    for (const auto& [key, value] : preset.defaults.items()) {
      if (!body.contains(key)) body[key] = value;
    }
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
