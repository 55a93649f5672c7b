#include "relay/wait_heartbeat.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zest::relay {

namespace asio = boost::asio;

WaitHeartbeat::WaitHeartbeat(const asio::any_io_executor& executor, http::ResponseWriter& writer,
                             std::chrono::milliseconds interval, std::string model)
    : executor_(executor),
      writer_(writer),
      interval_(interval),
      model_(std::move(model)),
      tick_(executor),
      finished_(executor, asio::steady_timer::time_point::max()) {}

void WaitHeartbeat::Start() {
  if (interval_.count() <= 0 || running_) return;
  running_ = true;
  asio::co_spawn(executor_, Loop(), asio::detached);
}

asio::awaitable<void> WaitHeartbeat::Loop() {
  // Named, not a braced temporary: GCC 12 miscompiles those inside co_await.
  const http::Headers headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  while (!stopping_) {
    tick_.expires_after(interval_);
    boost::system::error_code ec;
    co_await tick_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_ || writer_.client_gone()) break;
    if (!writer_.started() && !co_await writer_.StartStream(200, "text/event-stream", headers))
      break;
    auto waited = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::steady_clock::now() - started_);
    std::string comment =
        ": " + phase_ + " '" + model_ + "' (" + std::to_string(waited.count()) + " s)\n\n";
    if (!co_await writer_.WriteChunk(comment)) break;
  }
  running_ = false;
  finished_.cancel();
}

asio::awaitable<void> WaitHeartbeat::Stop() {
  stopping_ = true;
  tick_.cancel();
  if (!running_) co_return;
  boost::system::error_code ec;
  co_await finished_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace zest::relay
