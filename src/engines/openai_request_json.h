// A ChatRequest (chat_request.h) as the JSON of an OpenAI chat, text
// completion or embedding request, as llama-server reads it; FastFlowLM
// takes the same. Where llama-server has fields of its own, it gets them:
// n_keep and the other samplers OpenAI lacks, reasoning_budget_tokens,
// id_slot with cache_prompt, and on its text completion route the response
// format as `json_schema` (that route ignores OpenAI's response_format;
// {"type": "object"} is what json_object means). The request's passed-on
// members (`extra`) come first and zest's typed fields over them. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engines/chat_request.h"

namespace zest::engines {

nlohmann::json OpenAiRequestJson(const ChatRequest& request, const ChatCallOptions& options);

// The same as text: compact, invalid UTF-8 replaced with U+FFFD.
std::string OpenAiRequestText(const ChatRequest& request, const ChatCallOptions& options);

// Messages in OpenAI's shape, as the request carries them (presets and
// stored conversations keep theirs so).
nlohmann::json OpenAiMessagesJson(const std::vector<Message>& messages);

}  // namespace zest::engines
