// LoadApi: loading a model ahead of its first request, and how long it stays.
//   POST /api/v1/load {"model", "keep_alive"?, "options"?}: starts the
//     model's engine (or finds it running), waits until it is ready, and sets
//     its keep-alive (default: the server's). "options" are per-model engine
//     options (the names of `[models."name"]`, model_options_json.h) laid
//     over the model's configured ones for this load: loaded with other
//     options, an idle engine is restarted with these (409 while busy); the
//     same options change nothing. Answers {"status":"loaded","model",
//     "pid","load_ms","keep_alive","options"} (the options in effect); 400
//     naming the option (`param`) for a bad one, 404 for unknown models,
//     500 with the engine's last lines when it cannot start.
// Unloading is POST /api/v1/unload (AdminApi).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <optional>

#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/keep_alive.h"
#include "scheduler/model_config.h"

namespace zest::api::admin {

class LoadApi {
 public:
  // All must outlive the router the routes are added to.
  LoadApi(models::ModelRegistry& registry, scheduler::InstanceDirectory& instances,
          scheduler::InstanceLifecycle& lifecycle, const scheduler::ModelConfig& config,
          scheduler::Residency& residency)
      : registry_(registry),
        instances_(instances),
        lifecycle_(lifecycle),
        config_(config),
        residency_(residency) {}
  // Waits for a draft check still running on the blocking thread.
  ~LoadApi();

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Load(http::Request& request, http::ResponseWriter& writer);
  // The lifecycle's ExplicitLoad, with the request's options when it gave some.
  boost::asio::awaitable<Result<std::shared_ptr<scheduler::Instance>>> AcquireFor(
      models::ModelEntry model, std::optional<config::ModelSettings> settings);
  // The options the model's instance runs with (its configured ones if none).
  config::ModelSettings OptionsInEffect(const std::string& model);
  // Whether the draft `settings` name may run with `model`
  // (scheduler::ChooseSpeculative): it reads both GGUF headers' token lists,
  // so it is co_spawned on blocking_, never run on the I/O thread.
  boost::asio::awaitable<Status> CheckDraftBlocking(models::ModelEntry model,
                                                    config::ModelSettings settings);

  models::ModelRegistry& registry_;
  scheduler::InstanceDirectory& instances_;
  scheduler::InstanceLifecycle& lifecycle_;
  const scheduler::ModelConfig& config_;
  scheduler::Residency& residency_;
  boost::asio::thread_pool blocking_{1};  // the draft check's file reads
};

}  // namespace zest::api::admin
