// The one way a chat, text completion or embedding request of any API
// reaches an engine. Each API's parser reads its request into the typed
// request (engines/chat_request.h); from there every API takes the same
// steps: the model's capability checked, its preset applied
// (model_preset.h), the request's bounds checked (request_fields.h), a
// named tool forced (request/tool_choice.h), zest's default answer limit
// set when it names none, admission with the same priorities, deadlines
// and keys (admit_request.h, key_scope.h), the relay (engine_relay.h),
// where the engine's adapter writes the request in its own shape once, and
// the answer made into the API's shape (answer_translator.h).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "api/chat_images.h"
#include "api/request/request_fields.h"
#include "core/duration.h"
#include "engines/chat_request.h"
#include "http/request.h"
#include "http/response_writer.h"
#include "models/model_registry.h"
#include "relay/answer_translator.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"

namespace zest::api {

// What the API's handlers share.
struct ChatRouteOptions {
  std::chrono::seconds queue_timeout{300};  // default wait for a slot
  RequestLimits limits;                     // what a request may hold
  Duration max_keep_alive;                  // an inference key's cap (key_scope.h)
  int default_max_tokens = 16384;           // for requests that name no limit
  // Speech to text: the most bytes of audio requests hold at once (0: no
  // limit; limits.max_audio_memory_mb).
  uint64_t audio_memory_bytes = 512ull << 20;
  // Text to speech: the longest input, in characters (limits.max_speech_chars).
  int max_speech_chars = 4096;
  // Images in chat (chat_images.h): limits, hosts to fetch from; shared by
  // every API's copy of these options. Null: requests with images refused.
  std::shared_ptr<const ChatImages> images;
  // Keys share the engines' prompt caches (security.share_prompt_cache);
  // otherwise each request reads only what its own key left there.
  bool share_prompt_cache = false;
};

// One request, read by its API.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ChatJob {
  models::ModelEntry model;  // resolved from request.model
  engines::ChatRequest request;
  // The answer in the API's shape; null: the engine's (OpenAI's) as it is
  // (request/openai_answer.h).
  std::shared_ptr<relay::AnswerTranslator> translator;
  relay::ErrorSender send_error = nullptr;  // the API's error shape; null: OpenAI's
  // The conversation as the client names it in the API's own field
  // (prompt_cache_key, metadata.user_id...; session_key.h); "" = none.
  std::string session;
};

// Whether `model` serves `kind` (a generating model for chat and
// completions, an embedding model for embeddings): kInvalidArgument naming
// the right route otherwise, kInternal for a model file zest cannot read.
Status CheckCapability(engines::Capability kind, const models::ModelEntry& model);

// The steps before admission: capability, vision, preset, bounds, tool
// choice, default limit. kInvalidArgument etc. with the field at fault in `*param`.
Status PrepareChatJob(const ChatRouteOptions& options, ChatJob& job, std::string* param);

// Prepares, admits and relays `job`; every error goes out in the API's shape.
boost::asio::awaitable<void> RunChatJob(relay::EngineServices engines,
                                        const ChatRouteOptions& options, http::Request& request,
                                        http::ResponseWriter& writer,
                                        relay::RequestObserver& observer, ChatJob job);

}  // namespace zest::api
