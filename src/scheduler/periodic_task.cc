#include "scheduler/periodic_task.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zest::scheduler {

namespace asio = boost::asio;

PeriodicTask::PeriodicTask(Strand& strand, std::chrono::milliseconds interval,
                           std::function<asio::awaitable<void>()> run)
    : strand_(strand), interval_(interval), run_(std::move(run)), timer_(strand) {}

void PeriodicTask::Start() {
  started_ = true;
  asio::co_spawn(strand_, Loop(), asio::detached);
}

void PeriodicTask::Stop() {
  stopped_ = true;
  asio::post(strand_, [this] { timer_.cancel(); });
}

void PeriodicTask::StopAndWait() {
  stopped_ = true;
  // The timer is cancelled here and waited for, not left to a handler that
  // could run after the owner is gone.
  std::promise<void> cancelled;
  asio::post(strand_, [this, &cancelled] {
    timer_.cancel();
    cancelled.set_value();
  });
  cancelled.get_future().wait();
  if (started_) ended_.get_future().wait();
}

asio::awaitable<void> PeriodicTask::Loop() {
  while (!stopped_) {
    timer_.expires_after(interval_);
    boost::system::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopped_) break;
    co_await run_();
  }
  ended_.set_value();
}

}  // namespace zest::scheduler
