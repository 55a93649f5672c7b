#include "relay/stream_chunk.h"

#include <nlohmann/json.hpp>

#include "relay/json_text.h"

namespace zest::relay {
namespace {

using nlohmann::json;

// Whether the chunk lacks the role: choices[0].delta is an object without one.
bool LacksRole(const json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty() ||
      !(*choices)[0].is_object()) {
    return false;
  }
  auto delta = (*choices)[0].find("delta");
  return delta != (*choices)[0].end() && delta->is_object() && !delta->contains("role");
}

}  // namespace

std::string WithModelName(std::string body, const std::string& name) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("model")) return body;
  doc["model"] = name;
  return JsonText(doc);
}

std::optional<std::string> FixChunk(std::string_view data, bool add_role,
                                    const std::string* model) {
  EngineEvent event(data);
  FixChunk(event, add_role, model);
  if (!event.changed()) return std::nullopt;
  return std::string(event.Text());
}

void FixChunk(EngineEvent& event, bool add_role, const std::string* model) {
  if (!add_role && model == nullptr) return;
  const json& doc = event.Doc();
  if (!doc.is_object()) return;
  if (add_role && LacksRole(doc)) event.MutableDoc()["choices"][0]["delta"]["role"] = "assistant";
  if (model != nullptr && doc.contains("model")) event.MutableDoc()["model"] = *model;
}

}  // namespace zest::relay
