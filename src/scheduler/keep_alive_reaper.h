// KeepAliveReaper: twice a second, stops the instances whose keep-alive ran
// out (Residency decides which) and that have no request in flight.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#include "scheduler/instance_directory.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/keep_alive.h"
#include "scheduler/periodic_task.h"

namespace zest::scheduler {

class KeepAliveReaper {
 public:
  KeepAliveReaper(boost::asio::io_context& io, Residency& residency, InstanceDirectory& instances,
                  InstanceLifecycle& lifecycle);

  void Start() { task_.Start(); }
  // Stops checking; safe to call from any thread, before the io_context ends.
  void Stop() { task_.Stop(); }

  // One check as of `now` (the periodic task passes the clock's; tests a
  // time of their own). Not concurrently with itself.
  boost::asio::awaitable<void> ReapOnce(Residency::Clock::time_point now);

 private:
  Residency& residency_;
  InstanceDirectory& instances_;
  InstanceLifecycle& lifecycle_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  PeriodicTask task_;  // ReapOnce twice a second
};

}  // namespace zest::scheduler
