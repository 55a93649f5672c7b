#include "api/json_body.h"

#include <algorithm>

namespace zest::api {

Result<nlohmann::json> ParseJsonObject(std::string_view body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("the request body is not valid JSON");
  if (!doc.is_object()) return InvalidArgument("the request body must be a JSON object");
  return doc;
}

Result<std::string> StringMember(const nlohmann::json& object, const char* key,
                                 std::string_view where, bool required) {
  const std::string name = where.empty() ? key : std::string(where) + "." + key;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) return InvalidArgument(name + " is required");
    return std::string();
  }
  if (!it->is_string()) return InvalidArgument(name + " must be a string");
  return it->get<std::string>();
}

nlohmann::json TakeMember(nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return nullptr;
  nlohmann::json value = std::move(*it);
  object.erase(it);
  return value;
}

bool OnlyMembers(const nlohmann::json& object, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) return false;
  }
  return true;
}

}  // namespace zest::api
