// InstancePool's record of one instance (a model has one per instance),
// shared by the pool's source files (instance_pool.cc: loading and stopping;
// instance_pool_dispatch.cc: dispatch and replicas; instance_pool_memory.cc:
// memory admission and eviction) and its parts (pool_ledger.h: the memory
// ledger; options_reload.h: reloads for other options; load_retry.h: a
// request's way to a ready instance). Internal to scheduler/.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "placement/engine_plan.h"
#include "scheduler/instance_pool.h"

namespace zest::scheduler {

struct PoolEntry {
  PoolEntry(const boost::asio::any_io_executor& executor, std::string model_name, bool is_replica)
      : model(std::move(model_name)), replica(is_replica), done(executor) {
    done.expires_at(boost::asio::steady_timer::time_point::max());
  }
  const std::string model;
  // Added beside the model's first instance (by the autoscaler): placed on
  // another device, never waits for memory or drains anything, does not
  // save slots (the first instance's conversations are the ones kept).
  const bool replica;
  enum class State { kLoading, kReady, kFailed };
  // The pool's list_mu_ (a member of InstancePool, so the analysis cannot name it) guards
  // state, instance, plan and draining.
  State state = State::kLoading;
  std::shared_ptr<Instance> instance;
  Status error;                    // set before `done` is cancelled
  boost::asio::steady_timer done;  // cancelled when the load finishes; strand only
  placement::EnginePlan plan;      // set before the engine starts
  config::ModelSettings settings;  // the options it is loaded with; set at creation
  double load_s = 0;               // how long the load took (reload cost); strand only
  // Being emptied so another model's load can evict it: requests in flight
  // finish, new ones wait for it to go (and then load it again).
  bool draining = false;
  // Its engine was killed from outside while it loaded (set before `done`
  // is cancelled): the requests waiting on it may load the model again.
  bool killed_from_outside = false;
  // An urgent request (high priority, explicit load) waits on this load: it
  // may drain a busy instance for memory. Strand only.
  bool may_drain = false;
};

// What the pool's files do to one instance, outside the pool's own state
// (instance_pool.cc).

// Stops its process (SIGTERM, SIGKILL after the grace period) and removes
// its directory, on `blocking` (it blocks for up to the grace period).
boost::asio::awaitable<void> TerminateOn(boost::asio::thread_pool& blocking,
                                         std::shared_ptr<Instance> instance);
// Saves an idle instance's slots into `dir` before it stops (slot_cache.h):
// nothing when `dir` is empty or the instance has no slots, is busy or gone.
boost::asio::awaitable<void> SaveIdleSlots(std::shared_ptr<Instance> instance,
                                           std::filesystem::path dir);
// Counts a failure of the engine's own (not a kill from outside) toward the
// crash-loop breaker, and logs the hold it sets.
void NoteOwnFailure(CrashLoopBreaker& breaker, const std::string& model, const std::string& reason);
// Logs the CPU prediction against the engine's measured RSS and learns from
// it (the model's memory correction, written on `blocking`).
void LearnFromMeasured(const LoadPlanner& planner, PoolEvents* events,
                       boost::asio::thread_pool& blocking, const models::ModelEntry& model,
                       const Instance& instance, const placement::EnginePlan& plan);

}  // namespace zest::scheduler
