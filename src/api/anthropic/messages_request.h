// Anthropic's Messages request (POST /v1/messages) read into the typed
// request (engines/chat_request.h). Pure.
//
// What maps (Anthropic's API reference, "Messages"):
//   - system (a string or text blocks) → the system message; system
//     messages among the turns (Claude Code sends them) as
//     system_turns.h places them;
//   - messages with string or block content: text; image (base64 or url
//     source) → image parts; tool_use (assistant) → tool_calls with the
//     input as JSON arguments; tool_result (user; string or text and image
//     blocks, is_error) → tool messages answering their call, before the
//     rest of that user turn, which takes the results' images; thinking →
//     reasoning_content, its signature ignored (redacted thinking is
//     dropped: zest cannot read it); cache_control on any block is ignored;
//   - tools (custom tools: name, description, input_schema) → functions;
//     the tools Anthropic's servers run (web search and fetch, code
//     execution) are left out of the prompt, refused only when tool_choice
//     names one; container and mcp_servers are refused: they run on
//     Anthropic's servers;
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

// The conversation's session (api/session_key.h): metadata.user_id, the one
// per-conversation field Anthropic's API has (Claude Code sends one per
// session). "" when there is none.
std::string SessionOf(const nlohmann::json& body);

}  // namespace zest::api::anthropic
