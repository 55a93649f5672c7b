// PeriodicTask: runs a coroutine every `interval` on a strand, one run at a
// time (the next interval starts when a run ends), until Stop(). The
// background loops of the scheduler (keep-alive reaper, engine watchdog,
// autoscaler) are each one of these around their own check.
#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <functional>
#include <future>

namespace zest::scheduler {

class PeriodicTask {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;
  // `run` is called on `strand`; it and the strand must outlive the task.
  PeriodicTask(Strand& strand, std::chrono::milliseconds interval,
               std::function<boost::asio::awaitable<void>()> run);

  void Start();
  // Stops after the run under way, if any; safe from any thread, before the
  // io_context ends.
  void Stop();
  // Stop, then waits until the loop has ended (the run under way, if any,
  // finishes first), so its owner may go while the io_context runs on
  // (tests). Once, from a thread that does not run the io_context, while it
  // runs.
  void StopAndWait();

 private:
  boost::asio::awaitable<void> Loop();

  Strand& strand_;
  const std::chrono::milliseconds interval_;
  const std::function<boost::asio::awaitable<void>()> run_;
  boost::asio::steady_timer timer_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> started_{false};
  std::promise<void> ended_;  // set when Loop returns
};

}  // namespace zest::scheduler
