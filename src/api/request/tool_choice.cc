#include "api/request/tool_choice.h"

#include <algorithm>

namespace zest::api {

using engines::ToolChoice;

Status ForceNamedTool(engines::ChatRequest& request) {
  if (!request.tool_choice || request.tool_choice->mode != ToolChoice::Mode::kFunction) {
    return Status::Ok();
  }
  const std::string name = request.tool_choice->function;
  std::erase_if(request.tools, [&name](const engines::Tool& tool) { return tool.name != name; });
  if (request.tools.empty()) {
    return InvalidArgument("tool_choice names the function '" + name + "', which is not in tools");
  }
  request.tool_choice = ToolChoice{ToolChoice::Mode::kRequired, ""};
  return Status::Ok();
}

}  // namespace zest::api
