// ResponsesApi: OpenAI's Responses API, for clients and agents that speak
// it (Codex, the `openai` SDKs' `responses`): POST /v1/responses, whole or
// streamed as its events; the stored responses (`store`, on by default):
// GET and DELETE /v1/responses/{id}, GET /v1/responses/{id}/input_items;
// previous_response_id continues a stored conversation. Runs on the
// engine's chat route like every API's (chat_route.h), translated on the
// way in (responses_request.h) and out (responses_answer.h). Stored
// responses are visible to the key that made them only (response_store.h).
// Errors are OpenAI's.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <utility>

#include "api/chat_route.h"
#include "api/responses/response_store.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"

namespace zest::api::responses {

class ResponsesApi {
 public:
  // All must outlive the router; `metrics` may be null (no metrics).
  ResponsesApi(models::ModelRegistry& registry, relay::EngineServices engines,
               ChatRouteOptions options, ResponseStore& store,
               relay::InferenceMetrics* metrics = nullptr)
      : registry_(registry),
        engines_(engines),
        options_(std::move(options)),
        store_(store),
        metrics_(metrics) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Create(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Get(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Delete(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> InputItems(http::Request& request, http::ResponseWriter& writer);

  models::ModelRegistry& registry_;
  relay::EngineServices engines_;
  const ChatRouteOptions options_;
  ResponseStore& store_;
  relay::InferenceMetrics* const metrics_;
};

}  // namespace zest::api::responses
