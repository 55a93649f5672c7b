// OllamaApi: Ollama's native API, for the apps that speak it (Open WebUI,
// editors' plugins, the `ollama` libraries). This part is the read-only
// one: GET / ("Ollama is running"), GET /api/version, GET /api/tags (the
// models), GET /api/ps (the loaded ones), POST /api/show. Names are
// Ollama's (`name:tag`, ":latest" for zest's untagged names: ollama_models.h);
// errors are Ollama's {"error": "..."} with its status codes.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_pool.h"
#include "scheduler/keep_alive.h"

namespace zest::api::ollama {

class OllamaApi {
 public:
  // All must outlive the router; `residency` may be null (no keep-alive).
  OllamaApi(models::ModelRegistry& registry, scheduler::InstancePool& pool,
            const scheduler::Residency* residency)
      : registry_(registry), pool_(pool), residency_(residency) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Tags(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Ps(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Show(http::Request& request, http::ResponseWriter& writer);

  models::ModelRegistry& registry_;
  scheduler::InstancePool& pool_;
  const scheduler::Residency* const residency_;
};

}  // namespace zest::api::ollama
