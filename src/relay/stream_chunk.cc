#include "relay/stream_chunk.h"

#include <nlohmann/json.hpp>

#include "relay/json_text.h"

namespace zest::relay {
namespace {

using nlohmann::json;

// Whether it added the role: choices[0].delta is an object without one.
bool AddAssistantRole(json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return false;
  auto delta = (*choices)[0].find("delta");
  if (delta == (*choices)[0].end() || !delta->is_object() || delta->contains("role")) return false;
  (*delta)["role"] = "assistant";
  return true;
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
  if (!add_role && model == nullptr) return std::nullopt;
  json doc = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  bool changed = add_role && AddAssistantRole(doc);
  if (model != nullptr && doc.contains("model")) {
    doc["model"] = *model;
    changed = true;
  }
  if (!changed) return std::nullopt;
  return JsonText(doc);
}

}  // namespace zest::relay
