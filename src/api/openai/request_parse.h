// Validation of OpenAI inference requests: just enough to route them (model,
// stream) and to reject malformed ones with a precise 400. The body itself
// is forwarded to the engine unchanged, so fields zest does not know
// (tools, response_format, stream_options, ...) keep working.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/request/request_fields.h"
#include "core/duration.h"
#include "core/result.h"

namespace zest::api::openai {

enum class Endpoint { kChatCompletions, kCompletions, kEmbeddings };

// The engine path for an endpoint ("/v1/chat/completions", ...).
const char* EnginePath(Endpoint endpoint);

struct InferenceRequest {
  std::string model;
  bool stream = false;
  std::string priority;                // the body's `priority` field ("high"/"normal"/"low"), or ""
  std::optional<Duration> keep_alive;  // the body's `keep_alive` (Ollama's field), if given
  bool max_tokens_given = false;       // max_tokens, max_completion_tokens or n_predict
  bool names_a_tool = false;           // tool_choice is an object (tool_choice.h)
};

// kInvalidArgument (message names the bad field) for malformed JSON, a
// non-object body, a missing/empty `model`, a bad `keep_alive`, missing
// `messages` (chat), `prompt` (completions) or `input` (embeddings), a
// non-boolean `stream`, a token limit (max_tokens, max_completion_tokens,
// n_predict) that is not an integer from 0 to `limits.max_tokens`, or a
// body over `limits` (too deep, too many messages).
// The bad field's name is returned in `*param` when given.
Result<InferenceRequest> ParseInferenceRequest(Endpoint endpoint, std::string_view body,
                                               std::string* param = nullptr,
                                               const RequestLimits& limits = {});

// `body` (a JSON object, as ParseInferenceRequest accepted it) with
// "max_tokens": `max_tokens` added as its first member; the rest of its
// bytes unchanged. For requests that name no limit.
std::string WithMaxTokens(std::string body, int max_tokens);

}  // namespace zest::api::openai
