// The tools a Responses client declares, as a chat template can take them.
// Codex groups function tools in namespaces ({"type": "namespace", "name":
// "multi_agent_v1", "tools": [...]}) and declares freeform tools
// ({"type": "custom", "name", "format"}, whose call carries one string,
// `input`); a chat template knows only flat function tools. So each is one
// function under a flat name (FlatToolName), a custom tool one whose only
// argument is `input`, and ClientTools maps the model's calls back to what
// the client declared: the name and namespace it routes on, and the kind of
// call item it expects (function_call or custom_tool_call). Pure.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace zest::api::responses {

// The name the model sees: "NAMESPACE__NAME", or NAME alone in the default
// namespace ("" or "functions", which Codex treats as the same).
std::string FlatToolName(const std::string& ns, const std::string& name);

struct ClientTool {
  std::string name;
  std::string ns;       // "" = the default namespace
  bool custom = false;  // a freeform tool: its call carries `input`, a string
};

class ClientTools {
 public:
  void Add(ClientTool tool);
  // The tool the model called by `flat`; a name not declared comes back as
  // a function of that name in the default namespace.
  ClientTool Find(const std::string& flat) const;
  // Whether a tool named `name` (in `ns`) was declared.
  bool Has(const std::string& name, const std::string& ns = "") const;

 private:
  std::map<std::string, ClientTool> by_flat_;
};

// A custom tool's `input` from the arguments the model wrote for its flat
// function ({"input": "..."}); the arguments as they are when they are not
// that shape.
std::string CustomToolInput(const std::string& arguments);

// The parameters of a custom tool's flat function: one string, `input`,
// described by the tool's grammar or format when it has one.
nlohmann::json CustomToolParameters(const nlohmann::json& tool);

}  // namespace zest::api::responses
