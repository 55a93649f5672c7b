// Validation of OpenAI inference requests: just enough to route them (model,
// stream) and to reject malformed ones with a precise 400. The body itself
// is forwarded to the engine unchanged, so fields zest does not know
// (tools, response_format, stream_options, ...) keep working.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/duration.h"
#include "core/result.h"

namespace zest::api::openai {

enum class Endpoint { kChatCompletions, kCompletions, kEmbeddings };

// The engine path for an endpoint ("/v1/chat/completions", ...).
const char* EnginePath(Endpoint endpoint);

struct InferenceRequest {
  std::string model;
  bool stream = false;
  std::string priority;  // the body's `priority` field ("high"/"normal"/"low"), or ""
  std::optional<Duration> keep_alive;  // the body's `keep_alive` (Ollama's field), if given
};

// `keep_alive` as Ollama clients send it: a duration string ("10m", "-1")
// or a number of seconds (negative = forever).
Result<Duration> ParseKeepAliveField(const nlohmann::json& value);

// Bounds on what a client may send, checked before anything is forwarded.
struct RequestLimits {
  int max_depth = 64;         // nesting of arrays/objects (checked before parsing)
  int max_messages = 4096;    // entries in `messages`
  int max_tokens = 131072;    // cap on max_tokens / max_completion_tokens / n_predict
};

// kInvalidArgument (message names the bad field) for malformed JSON, a
// non-object body, a missing/empty `model`, a bad `keep_alive`, missing
// `messages` (chat), `prompt` (completions) or `input` (embeddings), a
// non-boolean `stream`, or a body over `limits` (too deep, too many messages,
// too many tokens asked).
// The bad field's name is returned in `*param` when given.
Result<InferenceRequest> ParseInferenceRequest(Endpoint endpoint, std::string_view body,
                                               std::string* param = nullptr,
                                               const RequestLimits& limits = {});

// Whether `text` nests arrays/objects deeper than `max_depth` (strings and
// their escapes are skipped). Linear and allocation-free, so a hostile body
// is refused before a parser builds anything from it.
bool JsonDeeperThan(std::string_view text, int max_depth);

}  // namespace zest::api::openai
