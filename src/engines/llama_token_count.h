// llama-server's token counting route, POST /v1/messages/count_tokens: it
// takes an Anthropic Messages request, turns it into an OpenAI chat the
// way its own /v1/messages does, applies the model's chat template and
// tokenizes the prompt (it answers {"input_tokens": N}). zest writes that
// body from the typed request (engines/chat_request.h) rather than passing
// on the client's, so the engine counts the conversation zest would send it
// to generate, under the engine's model name. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::engines {

// The route that counts.
inline constexpr std::string_view kTokenCountPath = "/v1/messages/count_tokens";

// The body for kTokenCountPath: `request`'s messages as OpenAI's chat
// carries them (the route passes a message whose content is a string on
// unchanged, so a text turn, a tool call and a tool result reach the chat
// template as they would from /v1/chat/completions; so does null content,
// which stands for an absent one, a turn the route would drop); a message
// with image parts in Anthropic's blocks (the route drops an OpenAI image
// part); tools and the tool choice in Anthropic's shape, which
// is the one it reads. `model` is the engine's name for the model.
std::string TokenCountBody(const ChatRequest& request, const std::string& model);

// Its answer's count; kEngineFailed for any other answer.
Result<uint64_t> ReadTokenCountAnswer(int status, std::string_view body);

}  // namespace zest::engines
