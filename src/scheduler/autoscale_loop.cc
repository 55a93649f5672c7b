#include "scheduler/autoscale_loop.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>

namespace zest::scheduler {

namespace asio = boost::asio;
using namespace std::chrono_literals;

AutoscaleLoop::AutoscaleLoop(asio::io_context& io, AutoscaleParams params, Admission& admission,
                             InstanceDirectory& instances, InstanceLifecycle& lifecycle,
                             models::ModelRegistry& registry)
    : enabled_(params.enabled),
      autoscaler_(params),
      admission_(admission),
      instances_(instances),
      lifecycle_(lifecycle),
      registry_(registry),
      strand_(asio::make_strand(io)),
      task_(strand_, 500ms, [this] { return TickOnce(Autoscaler::Clock::now()); }),
      backoff_(6 * params.window) {}

void AutoscaleLoop::Start() {
  if (enabled_) task_.Start();
}

void AutoscaleLoop::Stop() { task_.Stop(); }

asio::awaitable<void> AutoscaleLoop::TickOnce(Autoscaler::Clock::time_point now) {
  std::map<std::string, ModelLoad> loads;
  for (const InstanceStatus& s : instances_.List()) {
    ModelLoad& load = loads[s.model];
    load.model = s.model;
    if (s.state == "loading") ++load.loading;
    if (s.state != "ready") continue;
    const auto idle = std::chrono::duration_cast<Autoscaler::Clock::duration>(
        std::chrono::duration<double>(s.idle_s));
    load.ready.push_back({s.pid, s.in_flight, now - idle, s.per_token_ms});
  }
  for (const QueueStats& q : admission_.Stats()) {
    auto it = loads.find(q.model);
    if (it == loads.end()) continue;
    it->second.queued = q.waiting_high + q.waiting_normal + q.waiting_low;
    it->second.slots = q.slots;
  }
  std::vector<std::string> models;
  for (auto& [model, load] : loads) {
    models.push_back(model);
    if (adding_.count(model)) ++load.loading;  // not in the pool's list yet
    if (auto it = retry_at_.find(model); it != retry_at_.end()) load.may_add = now >= it->second;
    AutoscaleDecision d = autoscaler_.Decide(load, now);
    if (d.action == AutoscaleDecision::Action::kUp) {
      adding_.insert(model);
      asio::co_spawn(strand_, AddReplica(model, d.reason, now), asio::detached);
    } else if (d.action == AutoscaleDecision::Action::kDown) {
      co_await lifecycle_.RemoveReplica(model, d.pid, d.reason);
    }
  }
  autoscaler_.Retain(models);
  std::erase_if(retry_at_, [&](const auto& entry) { return !loads.count(entry.first); });
}

asio::awaitable<void> AutoscaleLoop::AddReplica(std::string model, std::string reason,
                                                Autoscaler::Clock::time_point now) {
  auto entry = registry_.Find(model);
  if (entry.ok()) {
    // The pool logs the decision and its outcome.
    Status added = co_await lifecycle_.AddReplica(*entry, reason, /*by_autoscaler=*/true);
    if (added.ok()) {
      retry_at_.erase(model);
    } else {
      retry_at_[model] = now + backoff_;
    }
  } else {
    spdlog::warn("autoscale up '{}' not done: {}", model, entry.status().message());
  }
  adding_.erase(model);
}

}  // namespace zest::scheduler
