// OpenAiApi: the OpenAI-compatible routes, under /v1/ and /api/v1/:
// GET models, GET models/{id}, POST chat/completions, completions,
// embeddings. Handlers parse and validate, resolve the model, and hand the
// request to the engine relay; nothing else.
#pragma once

#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_pool.h"

namespace zest::api::openai {

class OpenAiApi {
 public:
  // Both must outlive the router the routes are added to.
  OpenAiApi(models::ModelRegistry& registry, scheduler::InstancePool& pool)
      : registry_(registry), pool_(pool) {}

  void Register(http::Router& router);

 private:
  models::ModelRegistry& registry_;
  scheduler::InstancePool& pool_;
};

}  // namespace zest::api::openai
