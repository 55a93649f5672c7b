// OpenAiApi: the OpenAI-compatible routes, under /v1/ and /api/v1/:
// GET models, GET models/{id}, POST chat/completions, completions,
// embeddings. Handlers parse and validate, resolve the model, and hand the
// request to the engine relay; nothing else.
#pragma once

#include "api/inference_metrics.h"
#include "api/openai/request_parse.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_pool.h"

namespace zest::api::openai {

class OpenAiApi {
 public:
  // All must outlive the router the routes are added to; `metrics` may be
  // null (no metrics).
  OpenAiApi(models::ModelRegistry& registry, scheduler::InstancePool& pool,
            InferenceMetrics* metrics = nullptr)
      : registry_(registry), pool_(pool), metrics_(metrics) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Inference(Endpoint endpoint, http::Request& request,
                                         http::ResponseWriter& writer);
  boost::asio::awaitable<void> Route(Endpoint endpoint, http::Request& request,
                                     http::ResponseWriter& writer, RequestObserver& observer);

  models::ModelRegistry& registry_;
  scheduler::InstancePool& pool_;
  InferenceMetrics* const metrics_;
};

}  // namespace zest::api::openai
