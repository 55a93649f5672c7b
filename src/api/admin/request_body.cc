#include "api/admin/request_body.h"

#include "api/json_body.h"
#include "api/request/request_fields.h"

namespace zest::api::admin {
namespace {

using nlohmann::json;

Status Bad(std::string* param, const char* field, std::string message) {
  if (param != nullptr) *param = field;
  return InvalidArgument(std::move(message));
}

// The non-empty string `field` of `doc`; `what` says what it should hold.
Result<std::string> RequiredString(const json& doc, const char* field, std::string* param,
                                   const std::string& what = "") {
  auto it = doc.find(field);
  if (it == doc.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return Bad(param, field, std::string("'") + field + "' is required" + what);
  }
  return it->get<std::string>();
}

// An optional boolean field: `fallback` when absent or null.
Result<bool> OptionalBool(const json& doc, const char* field, bool fallback, std::string* param) {
  auto it = doc.find(field);
  if (it == doc.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Bad(param, field, std::string("'") + field + "' must be a boolean");
  return it->get<bool>();
}

}  // namespace

Result<std::string> StringField(const std::string& body, const char* field) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  return RequiredString(doc, field, nullptr);
}

Result<AddRequest> ParseAddRequest(const std::string& body, std::string* param) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  AddRequest out;
  ZEST_ASSIGN_OR_RETURN(out.name, RequiredString(doc, "name", param));
  ZEST_ASSIGN_OR_RETURN(out.path, RequiredString(doc, "path", param));
  auto mmproj = doc.find("mmproj");
  if (mmproj != doc.end() && !mmproj->is_null()) {
    if (!mmproj->is_string()) return Bad(param, "mmproj", "'mmproj' must be a path");
    out.mmproj = mmproj->get<std::string>();
  }
  return out;
}

Result<LoadRequest> ParseLoadRequest(const std::string& body, std::string* param) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  LoadRequest request;
  ZEST_ASSIGN_OR_RETURN(request.model, RequiredString(doc, "model", param));
  if (auto field = doc.find("keep_alive"); field != doc.end() && !field->is_null()) {
    auto parsed = api::ParseKeepAliveField(*field);
    if (!parsed.ok()) return Bad(param, "keep_alive", parsed.status().message());
    request.keep_alive = *parsed;
  }
  if (auto field = doc.find("options"); field != doc.end() && !field->is_null()) {
    request.options = *field;
  }
  ZEST_ASSIGN_OR_RETURN(request.replica, OptionalBool(doc, "replica", false, param));
  return request;
}

Result<PullRequest> ParsePullRequest(const std::string& body, std::string* param) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  PullRequest request;
  ZEST_ASSIGN_OR_RETURN(
      request.model,
      RequiredString(doc, "model", param, ": a catalog name, org/repo[:QUANT] or a file URL"));
  ZEST_ASSIGN_OR_RETURN(request.stream, OptionalBool(doc, "stream", true, param));
  return request;
}

}  // namespace zest::api::admin
