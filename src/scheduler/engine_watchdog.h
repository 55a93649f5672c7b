// EngineWatchdog: once a second, has the pool forget engines whose process
// has exited (InstanceLifecycle::ForgetExited: a kill or crash no request saw),
// and asks every ready engine's /health. An engine that has not answered for
// `timeout` while its process still runs (hung in a deadlock, stopped with
// SIGSTOP, swapping itself to death) is killed and forgotten, so the next
// request starts a fresh one; both count toward the crash-loop breaker.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <map>
#include <string>

#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/periodic_task.h"

namespace zest::scheduler {

class EngineWatchdog {
 public:
  EngineWatchdog(boost::asio::io_context& io, InstanceDirectory& instances,
                 InstanceLifecycle& lifecycle, std::chrono::seconds timeout);

  void Start();  // with a zero timeout, only exited engines are looked for
  // Stops checking; safe from any thread, before the io_context ends.
  void Stop();
  // Stop, and wait for a check under way (PeriodicTask::StopAndWait).
  void StopAndWait() { task_.StopAndWait(); }

 private:
  boost::asio::awaitable<void> CheckAll();
  // Whether the engine on `socket` answers 200 at `path` (its health probe).
  boost::asio::awaitable<bool> Answers(std::string socket, std::string path);

  InstanceDirectory& instances_;
  InstanceLifecycle& lifecycle_;
  const std::chrono::seconds timeout_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  PeriodicTask task_;                                                   // CheckAll every second
  std::map<pid_t, std::chrono::steady_clock::time_point> last_answer_;  // strand only
};

}  // namespace zest::scheduler
