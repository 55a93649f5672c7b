#include "api/openai/tool_choice.h"

#include <nlohmann/json.hpp>
#include <string>

#include "api/json_body.h"
#include "api/json_text.h"

namespace zest::api::openai {

using json = nlohmann::json;

bool NamesATool(const json& body) {
  auto choice = body.find("tool_choice");
  return choice != body.end() && choice->is_object();
}

Status ForceNamedTool(json& body) {
  if (!NamesATool(body)) return Status::Ok();
  const json& choice = body["tool_choice"];
  const json* function = choice.contains("function") ? &choice["function"] : nullptr;
  if (choice.value("type", "") != "function" || function == nullptr || !function->is_object() ||
      !function->contains("name") || !(*function)["name"].is_string()) {
    return InvalidArgument(
        "tool_choice must be \"auto\", \"none\", \"required\" or "
        "{\"type\": \"function\", \"function\": {\"name\": ...}}");
  }
  const std::string name = (*function)["name"].get<std::string>();
  json only = json::array();
  if (auto tools = body.find("tools"); tools != body.end() && tools->is_array()) {
    for (const json& tool : *tools) {
      const json* f = tool.is_object() && tool.contains("function") ? &tool["function"] : nullptr;
      if (f != nullptr && f->is_object() && f->value("name", "") == name) only.push_back(tool);
    }
  }
  if (only.empty()) {
    return InvalidArgument("tool_choice names the function '" + name + "', which is not in tools");
  }
  body["tools"] = std::move(only);
  body["tool_choice"] = "required";
  return Status::Ok();
}

Result<std::string> WithNamedToolForced(std::string_view body) {
  ZEST_ASSIGN_OR_RETURN(json doc, ParseJsonObject(body));
  ZEST_RETURN_IF_ERROR(ForceNamedTool(doc));
  return JsonText(doc);
}

}  // namespace zest::api::openai
