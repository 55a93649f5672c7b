#include "api/admin/request_body.h"

#include <nlohmann/json.hpp>

namespace zest::api::admin {

Result<std::string> StringField(const std::string& body, const char* field) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return InvalidArgument("the request body must be a JSON object");
  }
  auto it = doc.find(field);
  if (it == doc.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return InvalidArgument(std::string("'") + field + "' is required");
  }
  return it->get<std::string>();
}

}  // namespace zest::api::admin
