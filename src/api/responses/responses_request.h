// OpenAI's Responses request (POST /v1/responses) read into the typed
// request (engines/chat_request.h), and the conversation it continues.
// Pure.
//
// What maps (OpenAI's API reference, "Responses"):
//   - input: a string (one user message) or items: messages (role user,
//     system, developer → system, assistant; content a string or parts
//     input_text / output_text / input_image), function_call and
//     custom_tool_call (assistant tool calls, consecutive ones in one
//     assistant turn; a namespaced one by its flat name, client_tools.h),
//     function_call_output and custom_tool_call_output (tool results),
//     reasoning (its summary and reasoning_text, or the text zest put in its
//     encrypted_content, become the next assistant turn's
//     reasoning_content; OpenAI's encrypted content is dropped: only
//     OpenAI can read it);
//   - instructions → the system message first (not carried to the next
//     turn, as in OpenAI's API);
//   - tools of type function and custom, and namespaces of them, as flat
//     functions (client_tools.h); tool_choice auto / none / required / a
//     named function or custom tool; parallel_tool_calls;
//   - text.format text / json_object / json_schema → response_format;
//   - max_output_tokens, temperature, top_p, reasoning.effort;
//   - previous_response_id: the stored conversation's messages first
//     (responses_api.h looks it up); store, metadata, user: echoed;
//   - prompt_cache_key → the session (api/session_key.h).
// Built-in tools (web search, file search, computer use, code interpreter,
// MCP...) are left out of the prompt, as the model cannot run them; a
// tool_choice that forces one is refused. Fields that change nothing for a
// local model (include, client_metadata, service_tier,
// truncation, safety_identifier...) are accepted and ignored.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/responses/client_tools.h"
#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api::responses {

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ResponsesJob {
  // The request without the earlier turns: its messages are this request's
  // (instructions first); model as the client sent it.
  engines::ChatRequest request;
  // This request's input as items, each with an id (input_items lists them).
  nlohmann::json input_items = nlohmann::json::array();
  // The tools as the client declared them, for its calls' names and kinds.
  ClientTools tools;
  // `include` asks for reasoning.encrypted_content: the answer's reasoning
  // items carry their text in it (ReasoningBlob), as Codex asks with
  // store: false, so the reasoning comes back on the next turn.
  bool encrypted_reasoning = false;
  bool store = true;
  std::string previous_response_id;  // "" when none
  std::string session;               // prompt_cache_key (api/session_key.h); "" when none
  // What the response object echoes: instructions, max_output_tokens,
  // metadata, parallel_tool_calls, reasoning, temperature, text,
  // tool_choice, tools, top_p, user.
  nlohmann::json echo = nlohmann::json::object();
};

// kInvalidArgument naming the bad field.
Result<ResponsesJob> ParseResponsesRequest(const nlohmann::json& body);

// `messages` (a stored conversation's) before the job's own, after its
// instructions.
void PrependConversation(std::vector<engines::Message> messages, ResponsesJob& job);

// A fresh id with `prefix` ("resp", "msg", "fc", "rs").
std::string NewId(const char* prefix);

// A reasoning item's `encrypted_content` as zest writes it: the reasoning
// text, marked as zest's ("zest1:" and base64). Not secret: the client
// holds the conversation, and could as well send the text in `summary`.
std::string ReasoningBlob(const std::string& text);
// The text of a blob ReasoningBlob made; nullopt for anything else (one
// OpenAI made, which only OpenAI can read).
std::optional<std::string> ReasoningFromBlob(const std::string& blob);

}  // namespace zest::api::responses
