// InstanceLifecycle: what starts and stops engine instances other than a
// request's own load: a load a user asks for, replicas (the autoscaler and
// users), stops (unload, keep-alive, delete) and the watchdog's kills.
// InstancePool implements it. Any thread.
#pragma once

#include <sys/types.h>

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string>

#include "config/model_settings.h"
#include "core/result.h"
#include "models/model_registry.h"
#include "scheduler/instance.h"

namespace zest::scheduler {

// Why an instance is stopped: whether its conversations are kept, and the
// bounded word metrics label it with.
struct StopReason {
  bool save_slots = false;  // save an idle instance's slots; they return on reload
  const char* label = "unload";
};
inline constexpr StopReason kUnload{true, "unload"};         // zest unload / stop
inline constexpr StopReason kKeepAlive{true, "keep_alive"};  // idle past its keep-alive
inline constexpr StopReason kDelete{false, "delete"};        // the model is being deleted

class InstanceLifecycle {
 public:
  virtual ~InstanceLifecycle() = default;

  // A load a user asked for (perhaps after fixing what made it fail): the
  // crash-loop breaker's record of the model is cleared (crash_loop.h), so
  // it is tried at once; then loaded as a request's first load would be, urgent. With `settings`
  // (an explicit load's per-model settings overlaid with its request's options) instead of the
  // configured ones: loaded with the same options, the running instance; with others, an idle
  // instance is stopped and the model loaded anew; kConflict while it has requests in flight or is
  // loading.
  virtual boost::asio::awaitable<Result<std::shared_ptr<Instance>>> ExplicitLoad(
      models::ModelEntry model, std::optional<config::ModelSettings> settings) = 0;

  // Starts another instance of `model` on a device its instances do not use
  // (placement/replica.h), if the ledger admits it without evicting anything
  // busy (idle instances of other models may go); logs `reason`. Errors:
  // kNotFound when the model has no ready instance, kInsufficientMemory,
  // kEngineFailed as for Acquire. `by_autoscaler`: the autoscaler's decision
  // (logged as such and counted in PoolEvents::Autoscaled), else a user's.
  virtual boost::asio::awaitable<Status> AddReplica(models::ModelEntry model, std::string reason,
                                                    bool by_autoscaler) = 0;

  // Stops the model's instance `pid` if it is idle and not the model's last
  // ready one; logs `reason`. False when it was not (or is gone).
  virtual boost::asio::awaitable<bool> RemoveReplica(std::string model, pid_t pid,
                                                     std::string reason) = 0;

  // Stops the model's instances (SIGTERM, then SIGKILL). kNotFound if none.
  virtual boost::asio::awaitable<Status> Stop(std::string model, StopReason reason) = 0;

  // Kills the model's engine if it is still the one with `pid` (the watchdog
  // found it unresponsive) and forgets it, so the next request starts anew.
  virtual boost::asio::awaitable<void> KillHung(std::string model, pid_t pid) = 0;

  // Forgets every ready instance whose engine has exited (killed, crashed)
  // as ReportBroken does, so a death no request saw does not linger in the
  // list until the next request for that model. The watchdog calls it.
  virtual boost::asio::awaitable<void> ForgetExited() = 0;
};

}  // namespace zest::scheduler
