// AutoscaleLoop: twice a second, shows the Autoscaler (autoscaler.h) each
// loaded model's queue (from Admission) and instances (from the pool), and
// carries out what it decides: InstancePool::AddReplica for "up" (in the
// background, so one model's load does not hold up the others' decisions)
// and InstancePool::RemoveReplica for "down". The pool logs and counts each
// change.
#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <map>
#include <set>
#include <string>

#include "models/model_registry.h"
#include "scheduler/admission.h"
#include "scheduler/autoscaler.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/periodic_task.h"

namespace zest::scheduler {

class AutoscaleLoop {
 public:
  // All must outlive the loop (Stop() it first).
  AutoscaleLoop(boost::asio::io_context& io, AutoscaleParams params, Admission& admission,
                InstanceDirectory& instances, InstanceLifecycle& lifecycle,
                models::ModelRegistry& registry);

  // Does nothing when the params say autoscaling is off.
  void Start();
  // Stops deciding; safe from any thread, before the io_context ends. A
  // replica already loading finishes loading.
  void Stop();

  // One look and its decisions, as of `now` (the periodic task passes the
  // clock's; tests a time of their own). On the loop's strand only: tests
  // co_spawn it there (strand()).
  boost::asio::awaitable<void> TickOnce(Autoscaler::Clock::time_point now);
  boost::asio::strand<boost::asio::io_context::executor_type>& strand() { return strand_; }

 private:
  boost::asio::awaitable<void> AddReplica(std::string model, std::string reason,
                                          Autoscaler::Clock::time_point now);

  const bool enabled_;
  Autoscaler autoscaler_;  // on strand_ only
  Admission& admission_;
  InstanceDirectory& instances_;
  InstanceLifecycle& lifecycle_;
  models::ModelRegistry& registry_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  PeriodicTask task_;             // Tick twice a second
  std::set<std::string> adding_;  // models with an AddReplica under way; strand_ only
  // After a failed AddReplica (no device or memory left), the model is not
  // tried again before this, so a machine without a second device does not
  // log an attempt every window. strand_ only.
  std::map<std::string, Autoscaler::Clock::time_point> retry_at_;
  const std::chrono::milliseconds backoff_;
};

}  // namespace zest::scheduler
