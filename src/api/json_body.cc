#include "api/json_body.h"

namespace zest::api {

Result<nlohmann::json> ParseJsonObject(std::string_view body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgument("the request body is not valid JSON");
  if (!doc.is_object()) return InvalidArgument("the request body must be a JSON object");
  return doc;
}

}  // namespace zest::api
