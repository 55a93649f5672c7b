#include "scheduler/engine_watchdog.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "http/upstream_client.h"

namespace zest::scheduler {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto kProbeTimeout = 1s;  // one /health exchange
}  // namespace

EngineWatchdog::EngineWatchdog(asio::io_context& io, InstanceDirectory& instances,
                               InstanceLifecycle& lifecycle, std::chrono::seconds timeout)
    : instances_(instances),
      lifecycle_(lifecycle),
      timeout_(timeout),
      strand_(asio::make_strand(io)),
      task_(strand_, 1s, [this] { return CheckAll(); }) {}

void EngineWatchdog::Start() { task_.Start(); }

void EngineWatchdog::Stop() { task_.Stop(); }

asio::awaitable<void> EngineWatchdog::CheckAll() {
  co_await lifecycle_.ForgetExited();
  if (timeout_.count() == 0) co_return;  // hung engines are not looked for
  auto now = std::chrono::steady_clock::now();
  std::map<pid_t, std::chrono::steady_clock::time_point> seen;
  for (const InstanceStatus& s : instances_.List()) {
    if (s.state != "ready" && s.state != "draining") continue;
    auto it = last_answer_.find(s.pid);
    auto last = it != last_answer_.end() ? it->second : now;  // new: counts from now
    if (co_await Answers(s.socket, s.health_path)) last = std::chrono::steady_clock::now();
    seen[s.pid] = last;
    if (std::chrono::steady_clock::now() - last >= timeout_) {
      spdlog::error("engine for '{}' (pid {}) has not answered for {} s; killing it", s.model,
                    s.pid, timeout_.count());
      co_await lifecycle_.KillHung(s.model, s.pid);
      seen.erase(s.pid);
    }
  }
  last_answer_ = std::move(seen);  // forget engines that are gone
}

asio::awaitable<bool> EngineWatchdog::Answers(std::string socket, std::string path) {
  // Cancels the probe when it takes too long.
  const http::UpstreamDeadline deadline(strand_, kProbeTimeout);
  http::UpstreamRequest request;
  request.target = std::move(path);
  request.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kProbeTimeout);
  request.canceller = deadline.canceller();
  auto response = co_await http::SendUpstream(strand_, socket, std::move(request));
  bool ok = response.ok() && (*response)->status() == 200;
  if (response.ok()) (void)co_await (*response)->ReadAll(64 * 1024);
  co_return ok;
}

}  // namespace zest::scheduler
