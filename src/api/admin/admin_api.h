// AdminApi: zest's own routes: GET /health (also /api/v1/health), GET
// /api/v1/ps, POST /api/v1/unload, POST /api/v1/add, GET /api/v1/engines,
// GET /api/v1/config. The CLI's commands other than `serve` use these.
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <mutex>
#include <optional>

#include "config/settings.h"
#include "core/mutex.h"
#include "core/result.h"
#include "engines/engine_locator.h"
#include "engines/engine_probe.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "scheduler/instance_pool.h"
#include "scheduler/keep_alive.h"

namespace zest::api::admin {

class AdminApi {
 public:
  // All references must outlive the router.
  // `residency` (may be null) tells when idle instances unload; `flm` is
  // FastFlowLM's binary (empty: not installed), listed by /api/v1/engines.
  AdminApi(const config::LoadedSettings& settings, models::ModelRegistry& registry,
           scheduler::InstancePool& pool, Result<engines::EngineLocation> engine,
           scheduler::Residency* residency = nullptr, std::filesystem::path flm = {});
  ~AdminApi();

  void Register(http::Router& router);

  // `llama-server --version/--list-devices`, run once off the I/O threads
  // and cached (SystemApi shares it).
  boost::asio::awaitable<Result<engines::EngineInfo>> EngineInfo();

 private:
  boost::asio::awaitable<Result<engines::EngineInfo>> ProbeBlocking();

  const config::LoadedSettings& settings_;
  models::ModelRegistry& registry_;
  scheduler::InstancePool& pool_;
  const Result<engines::EngineLocation> engine_;
  const std::filesystem::path flm_;
  scheduler::Residency* const residency_;
  boost::asio::thread_pool blocking_{1};
  Mutex mu_;
  std::optional<Result<engines::EngineInfo>> engine_info_ GUARDED_BY(mu_);
};

}  // namespace zest::api::admin
