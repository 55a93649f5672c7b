// OpenAI's inference requests (chat completions, text completions,
// embeddings) read into zest's one typed request (engines/chat_request.h)
// and checked there, once: the model, streaming, zest's keep_alive and
// priority, the answer's limit, messages, tools and the tool choice,
// sampling, the response format. What zest does not model (logit_bias,
// logprobs, stream_options, llama-server's own fields...) passes on to the
// engine unchanged in ChatRequest::extra, so fields zest does not know
// keep working.
#pragma once

#include <string>
#include <string_view>

#include "api/request/request_fields.h"
#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api::openai {

// `kind`: kChat, kCompletions or kEmbeddings. kInvalidArgument (the message
// names the bad field) for malformed JSON, a non-object body, a
// missing/empty `model`, a bad `keep_alive` or `priority`, missing
// `messages` (chat), `prompt` (completions) or `input` (embeddings), a
// non-boolean `stream`, a token limit (max_tokens, max_completion_tokens,
// n_predict) that is not an integer from 0 to `limits.max_tokens`, a body
// over `limits` (too many messages), a message without a role, tools other
// than functions, a tool_choice other than "auto", "none", "required" or
// a named function, or a sampler of the wrong type. The bad field's name
// is returned in `*param` when given. The answer's limit is the smallest
// of the token limits given; unset when none is.
Result<engines::ChatRequest> ParseInferenceRequest(engines::Capability kind, std::string_view body,
                                                   std::string* param = nullptr,
                                                   const RequestLimits& limits = {});

// The request's prompt_cache_key (a string), taken out of what the engine
// is sent: it names the conversation's session (api/session_key.h),
// which is zest's business. "" when there is none.
std::string TakePromptCacheKey(engines::ChatRequest& request);

}  // namespace zest::api::openai
