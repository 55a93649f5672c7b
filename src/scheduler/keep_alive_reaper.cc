#include "scheduler/keep_alive_reaper.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace zest::scheduler {

namespace asio = boost::asio;
using namespace std::chrono_literals;

KeepAliveReaper::KeepAliveReaper(asio::io_context& io, Residency& residency,
                                 InstanceDirectory& instances, InstanceLifecycle& lifecycle)
    : residency_(residency),
      instances_(instances),
      lifecycle_(lifecycle),
      strand_(asio::make_strand(io)),
      task_(strand_, 500ms, [this] { return ReapOnce(Residency::Clock::now()); }) {}

asio::awaitable<void> KeepAliveReaper::ReapOnce(Residency::Clock::time_point now) {
  for (const std::string& model : residency_.Expired(now)) {
    bool busy = false;
    for (const InstanceStatus& s : instances_.List()) {
      if (s.model == model && (s.in_flight > 0 || s.state != "ready")) busy = true;
    }
    if (busy) continue;
    // A request that raced in between is safe: Expired() skips models with
    // one in flight, and a request whose engine vanishes under it before it
    // connects gets a fresh one (engine_relay retries once).
    Status st = co_await lifecycle_.Stop(model, kKeepAlive);
    residency_.Forget(model);
    if (st.ok()) spdlog::info("unloaded '{}': idle past its keep_alive", model);
  }
}

}  // namespace zest::scheduler
