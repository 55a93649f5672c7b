#include "api/request/tools_json.h"

#include "api/json_body.h"

namespace zest::api {
namespace {

using nlohmann::json;

Result<engines::Tool> ReadTool(json tool) {
  json function = tool.is_object() ? TakeMember(tool, "function") : json();
  const json description = function.is_object() ? function.value("description", json()) : json();
  const json strict = function.is_object() ? function.value("strict", json()) : json();
  const bool fits = tool.is_object() && tool.value("type", json("function")) == "function" &&
                    function.is_object() && function.value("name", json()).is_string() &&
                    (description.is_null() || description.is_string()) &&
                    (strict.is_null() || strict.is_boolean());
  if (!fits) {
    return InvalidArgument(
        "tools must hold functions: {\"type\": \"function\", \"function\": {\"name\": ...}}");
  }
  engines::Tool out;
  out.name = TakeMember(function, "name").get<std::string>();
  if (json text = TakeMember(function, "description"); text.is_string()) {
    out.description = std::move(text.get_ref<std::string&>());
  }
  out.parameters = TakeMember(function, "parameters");
  if (json flag = TakeMember(function, "strict"); flag.is_boolean()) out.strict = flag.get<bool>();
  if (!function.empty()) out.extra = std::move(function);
  return out;
}

}  // namespace

Result<std::vector<engines::Tool>> ToolsFromJson(json tools) {
  if (tools.is_null()) return std::vector<engines::Tool>();
  if (!tools.is_array()) return InvalidArgument("tools must be a list");
  std::vector<engines::Tool> out;
  for (json& tool : tools) {
    ZEST_ASSIGN_OR_RETURN(engines::Tool typed, ReadTool(std::move(tool)));
    out.push_back(std::move(typed));
  }
  return out;
}

}  // namespace zest::api
