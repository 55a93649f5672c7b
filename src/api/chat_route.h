// The one way a chat request of any API reaches an engine: the request made
// into OpenAI's shape by its API (Ollama, Anthropic, ...), checked as an
// OpenAI request is (the same limits: openai/request_parse.h), given zest's
// default answer limit when it names none, admitted with the same
// priorities, deadlines and keys (admit_request.h, key_scope.h), relayed
// with its answer made into the API's shape (answer_translator.h).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/answer_translator.h"
#include "api/engine_relay.h"
#include "api/inference_metrics.h"
#include "api/openai/request_parse.h"
#include "core/duration.h"
#include "http/request.h"
#include "http/response_writer.h"
#include "models/model_registry.h"

namespace zest::api {

// What the API's handlers share.
struct ChatRouteOptions {
  std::chrono::seconds queue_timeout{300};  // default wait for a slot
  RequestLimits limits;                     // what a request may hold
  Duration max_keep_alive;                  // an inference key's cap (key_scope.h)
  int default_max_tokens = 16384;           // for requests that name no limit
};

// One request, translated.
// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct ChatJobSpec {
  models::ModelEntry model;  // resolved from the client's name
  std::string client_model;  // as the client spelled it
  openai::Endpoint endpoint = openai::Endpoint::kChatCompletions;
  nlohmann::json body;  // the OpenAI request, without "model"
  bool stream = false;
  std::optional<Duration> keep_alive;  // the request's own
  std::string priority;                // the body's `priority`, or ""
  std::shared_ptr<AnswerTranslator> translator;
  ErrorSender send_error = nullptr;  // the API's error shape
};

// Whether `model` serves `endpoint` (a generating model for completions, an
// embedding model for embeddings): kInvalidArgument naming the right
// route otherwise, kInternal for a model file zest cannot read.
Status CheckCapability(openai::Endpoint endpoint, const models::ModelEntry& model);

// Checks, admits and relays `job`; every error goes out in the API's shape.
boost::asio::awaitable<void> RunChatJob(EngineServices engines, const ChatRouteOptions& options,
                                        http::Request& request, http::ResponseWriter& writer,
                                        RequestObserver& observer, ChatJobSpec job);

}  // namespace zest::api
