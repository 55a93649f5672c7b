// AdminApi: zest's own routes: GET /health (also /api/v1/health), GET
// /api/v1/ps, POST /api/v1/unload, POST /api/v1/add, GET /api/v1/engines,
// GET /api/v1/config. The CLI's commands other than `serve` use these.
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "config/settings.h"
#include "core/mutex.h"
#include "core/result.h"
#include "engines/engine_probe.h"
#include "engines/engine_set.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/keep_alive.h"
#include "scheduler/session_tier.h"

namespace zest::api::admin {

class AdminApi {
 public:
  // All references must outlive the router.
  // `engines`: what /api/v1/engines lists; `residency` (may be null) tells
  // when idle instances unload.
  AdminApi(const config::LoadedSettings& settings, models::ModelRegistry& registry,
           scheduler::InstanceDirectory& instances, scheduler::InstanceLifecycle& lifecycle,
           std::shared_ptr<const engines::EngineSet> engines,
           scheduler::Residency* residency = nullptr);
  ~AdminApi();

  void Register(http::Router& router);
  // The body of GET /api/v1/ps for a request with `access`: engines' process
  // ids and socket paths for admin access only.
  nlohmann::json PsJson(http::Access access) const;

  // The devices the set's device-probing engine sees (ProbeDevices), run
  // once off the I/O threads and cached (SystemApi shares it). An error when
  // no engine probes devices or it is not installed.
  boost::asio::awaitable<Result<engines::EngineInfo>> DeviceProbe();
  const engines::EngineSet& engines() const { return *engines_; }

  // What /api/v1/health and /api/v1/system-info say of the RPC workers
  // (app/rpc_workers.h); unset: no workers. Set before serving.
  void SetRpcWorkers(std::function<nlohmann::json()> rpc_workers) {
    rpc_workers_ = std::move(rpc_workers);
  }
  nlohmann::json RpcWorkersJson() const;
  // What /api/v1/ps says of each loaded model's session tier (sessions
  // remembered, restores, files on disk); null: nothing. Set before serving.
  void SetSessionTier(const scheduler::SessionTier* tier) { session_tier_ = tier; }

 private:
  boost::asio::awaitable<Result<engines::EngineInfo>> ProbeBlocking(
      const engines::EngineAdapter* engine);
  const engines::EngineAdapter* ProbedEngine() const;

  const config::LoadedSettings& settings_;
  models::ModelRegistry& registry_;
  scheduler::InstanceDirectory& instances_;
  scheduler::InstanceLifecycle& lifecycle_;
  const std::shared_ptr<const engines::EngineSet> engines_;
  scheduler::Residency* const residency_;
  std::function<nlohmann::json()> rpc_workers_;
  const scheduler::SessionTier* session_tier_ = nullptr;
  boost::asio::thread_pool blocking_{1};
  Mutex mu_;
  std::optional<Result<engines::EngineInfo>> engine_info_ GUARDED_BY(mu_);
};

}  // namespace zest::api::admin
