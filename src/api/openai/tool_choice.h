// A tool_choice that names one function, made into what the engines take.
// llama-server (build 11669) reads tool_choice "auto", "none" and
// "required" only, and takes an object naming a function as "auto": the
// model may then answer in text or call another tool. The same request with
// tool_choice "required" and the named function as the only tool forces
// exactly that call, so zest sends that instead, for every API (OpenAI's
// {"type":"function","function":{"name"}}, Anthropic's {"type":"tool"},
// Responses' {"type":"function","name"} all arrive here in OpenAI's shape).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace zest::api::openai {

// Whether `body` (an OpenAI chat request) has a tool_choice object.
bool NamesATool(const nlohmann::json& body);

// Rewrites a chat request whose tool_choice names a function as above; no
// change for any other tool_choice. kInvalidArgument (naming tool_choice)
// for an object that is not {"type":"function","function":{"name":...}} or
// names a function `tools` lacks.
Status ForceNamedTool(nlohmann::json& body);

// ForceNamedTool on a request's JSON text (which NamesATool): the new text.
Result<std::string> WithNamedToolForced(std::string_view body);

}  // namespace zest::api::openai
