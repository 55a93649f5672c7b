#include "api/responses/client_tools.h"

#include <nlohmann/json.hpp>

namespace zest::api::responses {

using nlohmann::json;

std::string FlatToolName(const std::string& ns, const std::string& name) {
  if (ns.empty() || ns == "functions") return name;
  return ns + "__" + name;
}

void ClientTools::Add(ClientTool tool) {
  if (tool.ns == "functions") tool.ns.clear();
  std::string flat = FlatToolName(tool.ns, tool.name);
  by_flat_[std::move(flat)] = std::move(tool);
}

ClientTool ClientTools::Find(const std::string& flat) const {
  auto it = by_flat_.find(flat);
  return it != by_flat_.end() ? it->second : ClientTool{flat, "", false};
}

bool ClientTools::Has(const std::string& name, const std::string& ns) const {
  return by_flat_.contains(FlatToolName(ns, name));
}

std::string CustomToolInput(const std::string& arguments) {
  const json parsed = json::parse(arguments, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    if (auto input = parsed.find("input"); input != parsed.end() && input->is_string()) {
      return input->get<std::string>();
    }
  }
  return arguments;
}

json CustomToolParameters(const json& tool) {
  json input = {{"type", "string"}};
  const json format = tool.value("format", json());
  if (format.is_object() && format.value("definition", json()).is_string()) {
    const json syntax = format.value("syntax", json());
    input["description"] = "Text in this " +
                           (syntax.is_string() ? syntax.get<std::string>() : "grammar") +
                           " syntax:\n" + format["definition"].get<std::string>();
  }
  return {{"type", "object"},
          {"properties", {{"input", std::move(input)}}},
          {"required", json::array({"input"})}};
}

}  // namespace zest::api::responses
