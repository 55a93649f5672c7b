// Anthropic's Messages request (POST /v1/messages) read into the typed
// request (engines/chat_request.h). Pure.
//
// What maps (Anthropic's API reference, "Messages"):
//   - system (a string or text blocks) → the system message;
//   - messages with string or block content: text; image (base64 or url
//     source) → image parts; tool_use (assistant) → tool_calls with the
//     input as JSON arguments; tool_result (user; string or text/image
//     blocks, is_error) → tool messages answering their call, before the
//     rest of that user turn; thinking → reasoning_content (redacted
//     thinking is dropped: zest cannot read it);
//   - tools (custom tools: name, description, input_schema) → functions;
//     Anthropic's server tools (web search, code execution, ...) are
//     refused: no local engine runs them;
//   - tool_choice auto / any / tool / none → auto / required / the named
//     function / none; disable_parallel_tool_use → parallel_tool_calls;
//   - max_tokens (required), stop_sequences, temperature, top_p, top_k;
//     thinking enabled/disabled → the chat template's enable_thinking;
//     metadata is accepted and not used.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api::anthropic {

// `count_only`: for /v1/messages/count_tokens, which has no max_tokens.
// kInvalidArgument naming the bad field.
Result<engines::ChatRequest> ParseMessagesRequest(const nlohmann::json& body,
                                                  bool count_only = false);

}  // namespace zest::api::anthropic
