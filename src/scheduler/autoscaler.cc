#include "scheduler/autoscaler.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>

namespace zest::scheduler {
namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

AutoscaleDecision Autoscaler::Decide(const ModelLoad& load, Clock::time_point now) {
  if (!params_.enabled || load.ready.empty()) {
    pressured_since_.erase(load.model);
    return {};
  }
  AutoscaleDecision up = DecideUp(load, now);
  if (up.action != AutoscaleDecision::Action::kNone) return up;
  return DecideDown(load, now);
}

AutoscaleDecision Autoscaler::DecideUp(const ModelLoad& load, Clock::time_point now) {
  const double threshold = params_.queue_per_slot * std::max(load.slots, 1);
  if (static_cast<double>(load.queued) <= threshold) {
    pressured_since_.erase(load.model);
    return {};
  }
  auto [it, fresh] = pressured_since_.try_emplace(load.model, now);
  const auto pressured = now - it->second;
  const int instances = static_cast<int>(load.ready.size()) + load.loading;
  if (pressured < params_.window || load.loading > 0 || instances >= params_.max_replicas ||
      !load.may_add) {
    return {};
  }
  // The next one needs a window of its own (after this one is ready).
  pressured_since_.erase(it);
  AutoscaleDecision d;
  d.action = AutoscaleDecision::Action::kUp;
  d.reason = fmt::format("queue {} for {:.0f} s > {:.1f} per slot x {} slots ({} instance(s))",
                         load.queued, Seconds(pressured), params_.queue_per_slot, load.slots,
                         load.ready.size());
  return d;
}

AutoscaleDecision Autoscaler::DecideDown(const ModelLoad& load, Clock::time_point now) const {
  if (load.ready.size() < 2 || load.queued > 0 || load.loading > 0) return {};
  // Slower first (unmeasured slowest of all), then idle longer.
  auto goes_before = [](const ModelLoad::Instance& a, const ModelLoad::Instance& b) {
    const double inf = std::numeric_limits<double>::infinity();
    const double sa = a.per_token_ms.value_or(inf), sb = b.per_token_ms.value_or(inf);
    if (sa != sb) return sa > sb;
    return a.last_used < b.last_used;
  };
  const ModelLoad::Instance* idlest = nullptr;
  for (const ModelLoad::Instance& i : load.ready) {
    if (i.in_flight > 0 || now - i.last_used < params_.idle) continue;
    if (idlest == nullptr || goes_before(i, *idlest)) idlest = &i;
  }
  if (idlest == nullptr) return {};
  AutoscaleDecision d;
  d.action = AutoscaleDecision::Action::kDown;
  d.pid = idlest->pid;
  d.reason = fmt::format("pid {} idle for {:.0f} s >= {:.0f} s, nothing queued ({} instances)",
                         idlest->pid, Seconds(now - idlest->last_used), Seconds(params_.idle),
                         load.ready.size());
  return d;
}

void Autoscaler::Retain(const std::vector<std::string>& models) {
  std::set<std::string> keep(models.begin(), models.end());
  std::erase_if(pressured_since_, [&](const auto& entry) { return !keep.count(entry.first); });
}

}  // namespace zest::scheduler
