// AnthropicApi: Anthropic's Messages API, for the clients and agents that
// speak it (Claude Code, the `@anthropic-ai/sdk` libraries): POST
// /v1/messages, whole or streamed as Anthropic's events, and POST
// /v1/messages/count_tokens. Messages run on the engine's chat route like
// every API's (chat_route.h), translated on the way in
// (messages_request.h) and out (messages_answer.h); token counts come from
// the engine, which knows the model's template and tokenizer. Keys as
// `x-api-key` or Bearer; `anthropic-version` and `anthropic-beta` are
// accepted and not needed. Errors are Anthropic's
// {"type":"error","error":{"type","message"}} with zest's status codes.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <utility>

#include "api/chat_route.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"

namespace zest::api::anthropic {

class AnthropicApi {
 public:
  // All must outlive the router; `metrics` may be null (no metrics).
  AnthropicApi(models::ModelRegistry& registry, relay::EngineServices engines,
               ChatRouteOptions options, relay::InferenceMetrics* metrics = nullptr)
      : registry_(registry), engines_(engines), options_(std::move(options)), metrics_(metrics) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Messages(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> CountTokens(http::Request& request, http::ResponseWriter& writer);

  models::ModelRegistry& registry_;
  relay::EngineServices engines_;
  const ChatRouteOptions options_;
  relay::InferenceMetrics* const metrics_;
};

}  // namespace zest::api::anthropic
