// A tool_choice that names one function, made into what the engines take.
// llama-server (build 11669) reads tool_choice "auto", "none" and
// "required" only, and takes an object naming a function as "auto": the
// model may then answer in text or call another tool. The same request with
// tool_choice "required" and the named function as the only tool forces
// exactly that call, so zest sends that instead, for every API (OpenAI's
// {"type":"function","function":{"name"}}, Anthropic's {"type":"tool"},
// Responses' {"type":"function","name"} all arrive here as a
// ToolChoice::kFunction of the typed request).
#pragma once

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// Rewrites a request whose tool choice names a function as above; no
// change for any other. kInvalidArgument when it names a function the
// request's tools lack.
Status ForceNamedTool(engines::ChatRequest& request);

}  // namespace zest::api
