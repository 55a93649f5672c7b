// Fields every API's requests share, read the same way whichever API they
// came in by: Ollama's `keep_alive` (which zest takes on every route), and
// the bounds on what one request may hold, checked on the typed request.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/duration.h"
#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// Bounds on what a client may send, checked before anything is forwarded.
struct RequestLimits {
  int max_messages = 4096;  // entries in `messages`
  int max_tokens = 131072;  // cap on the answer's length (max_tokens and its synonyms)
  int max_choices = 4;      // cap on `n` (n_cmpl): answers made at once, a slot each
  int max_prompts = 16;     // prompts in a text completion's list, a slot each (times n)
  int max_inputs = 2048;    // inputs in an embeddings request's list
};

// `keep_alive` as Ollama clients send it: a duration string ("10m", "-1")
// or a number of seconds (negative = forever). kInvalidArgument otherwise.
Result<Duration> ParseKeepAliveField(const nlohmann::json& value);

// `request` within `limits`: its messages, its answer's limit (a preset's
// too), its number of choices (a positive integer, at most max_choices).
// kInvalidArgument naming the field in `*param` ("messages", "max_tokens",
// "n" or "n_cmpl").
Status CheckLimits(const engines::ChatRequest& request, const RequestLimits& limits,
                   std::string* param);

}  // namespace zest::api
