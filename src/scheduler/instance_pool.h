// InstancePool: starts, finds and stops engine instances, one per model.
//
// The first request for a model starts llama-server for it and waits for
// readiness (polling /health on its socket every ~20 ms, failing fast when
// the process exits); concurrent requests for the same model wait on that
// one load, while loads of different models proceed side by side. All pool
// state lives on one strand, so there are no locks around it and no global
// lock held across a load.
//
// Thread-safe: every public method may be called from any coroutine/thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_locator.h"
#include "engines/llama_server_args.h"
#include "models/model_registry.h"
#include "scheduler/instance.h"
#include "scheduler/pool_events.h"

namespace zest::scheduler {

struct PoolOptions {
  std::filesystem::path run_dir;  // 0700; engine sockets live here
  std::filesystem::path log_dir;  // engine log files
  int ctx_size = 4096;
  int parallel = 4;
  int threads = 0;
  std::chrono::seconds ready_timeout{120};
};

struct InstanceStatus {
  std::string model;
  pid_t pid = 0;
  std::string socket;
  std::string state;  // "loading", "ready"
  double uptime_s = 0;
  int in_flight = 0;
};

class InstancePool {
 public:
  // `engine` is where llama-server is; an error Status there makes every load
  // fail with that message (zest still serves its other routes).
  InstancePool(boost::asio::io_context& io, PoolOptions options,
               Result<engines::EngineLocation> engine);
  ~InstancePool();

  // A ready instance for `model`, started if needed. Errors: kEngineFailed
  // with the engine's last output lines when it exits or never gets ready,
  // kUnavailable when no engine is installed.
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> Acquire(models::ModelEntry model);

  // Tells the pool a request could not reach `instance`; if its process is
  // gone, the pool forgets it so the next Acquire starts a fresh one.
  boost::asio::awaitable<void> ReportBroken(std::shared_ptr<Instance> instance);

  // Stops the model's instance (SIGTERM, then SIGKILL). kNotFound if none.
  boost::asio::awaitable<Status> Stop(std::string model);

  std::vector<InstanceStatus> List();

  // The model's instance (loading or ready), or null: for reading its
  // engine's output (`zest logs`). Any thread.
  std::shared_ptr<Instance> Find(const std::string& model);

  // Reports engine lifecycle events to `events` (may be null). Call before
  // the pool serves; `events` must outlive the pool.
  void SetEvents(PoolEvents* events) { events_ = events; }

  // Stops every engine; blocks. Call at shutdown after the server stopped.
  void StopAll();

 private:
  struct Entry;
  std::shared_ptr<Instance> FindReady(const std::string& model);
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> AcquireOnStrand(models::ModelEntry model);
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> Load(const models::ModelEntry& model);
  boost::asio::awaitable<Status> WaitReady(Instance& instance);
  engines::LlamaServerOptions EngineOptions(const models::ModelEntry& model,
                                            const std::filesystem::path& socket) const;
  Result<std::unique_ptr<engines::Process>> SpawnEngine(const models::ModelEntry& model,
                                                        const std::filesystem::path& socket);
  boost::asio::awaitable<void> ForgetIfDead(std::shared_ptr<Instance> instance);
  boost::asio::awaitable<Status> StopOnStrand(std::string model);
  boost::asio::awaitable<void> TerminateOffStrand(std::shared_ptr<Instance> instance);
  boost::asio::awaitable<void> TerminateBlocking(std::shared_ptr<Instance> instance);

  const PoolOptions options_;
  const Result<engines::EngineLocation> engine_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  // Terminate() blocks for up to the grace period; it runs here, not on I/O threads.
  boost::asio::thread_pool blocking_{1};
  std::map<std::string, std::shared_ptr<Entry>> entries_;  // on strand_ only
  std::mutex list_mu_;  // guards entries_ for List()/StopAll() from other threads
  uint64_t next_socket_id_ = 0;                             // on strand_ only
  PoolEvents* events_ = nullptr;                            // set before serving
};

}  // namespace zest::scheduler
