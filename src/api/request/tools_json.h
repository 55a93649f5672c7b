// Tools in OpenAI's shape ({"type": "function", "function": {"name",
// "description", "parameters", "strict"}}) read into typed tools
// (engines/chat_request.h): an OpenAI chat request's and an Ollama chat
// request's, which takes the same shape. Other members of a function pass
// on unchanged; tools of other types than function are refused, since no
// local engine runs them.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// kInvalidArgument for what is not a list of functions with a name.
Result<std::vector<engines::Tool>> ToolsFromJson(nlohmann::json tools);

}  // namespace zest::api
