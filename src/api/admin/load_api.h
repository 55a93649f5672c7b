// LoadApi: loading a model ahead of its first request, and how long it stays.
//   POST /api/v1/load {"model", "keep_alive"?}: starts the model's engine (or
//     finds it running), waits until it is ready, and sets its keep-alive
//     (default: the server's). Answers {"status":"loaded","model",
//     "load_ms","keep_alive"}; 404 for unknown models, 500 with the engine's
//     last lines when it cannot start.
// Unloading is POST /api/v1/unload (AdminApi).
#pragma once

#include <boost/asio/awaitable.hpp>

#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_pool.h"
#include "scheduler/keep_alive.h"

namespace zest::api::admin {

class LoadApi {
 public:
  // All must outlive the router the routes are added to.
  LoadApi(models::ModelRegistry& registry, scheduler::InstancePool& pool,
          scheduler::Residency& residency)
      : registry_(registry), pool_(pool), residency_(residency) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Load(http::Request& request, http::ResponseWriter& writer);

  models::ModelRegistry& registry_;
  scheduler::InstancePool& pool_;
  scheduler::Residency& residency_;
};

}  // namespace zest::api::admin
