#include "scheduler/queue_discipline.h"

#include <algorithm>
#include <tuple>

#include "core/strings.h"

namespace zest::scheduler {

Result<Priority> ParsePriority(std::string_view text) {
  std::string lower = AsciiLower(text);
  if (lower == "high") return Priority::kHigh;
  if (lower == "normal") return Priority::kNormal;
  if (lower == "low") return Priority::kLow;
  return InvalidArgument("priority must be high, normal or low, not '" + std::string(text) + "'");
}

const char* PriorityName(Priority priority) {
  switch (priority) {
    case Priority::kHigh:
      return "high";
    case Priority::kNormal:
      return "normal";
    case Priority::kLow:
      return "low";
  }
  return "normal";
}

void QueueDiscipline::Push(QueuedRequest request) {
  cost_ += request.cost;
  queue_.push_back(std::move(request));
}

bool QueueDiscipline::Remove(uint64_t id) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [id](const QueuedRequest& r) { return r.id == id; });
  if (it == queue_.end()) return false;
  cost_ -= it->cost;
  queue_.erase(it);
  return true;
}

int QueueDiscipline::EffectiveClass(const QueuedRequest& request, Clock::time_point now) const {
  int promoted = 0;
  if (aging_step_.count() > 0 && now > request.enqueued) {
    promoted = static_cast<int>((now - request.enqueued) / aging_step_);
  }
  return std::max(0, static_cast<int>(request.priority) - promoted);
}

std::optional<QueuedRequest> QueueDiscipline::Pop(Clock::time_point now) {
  return PopBest(now, std::nullopt);
}

std::optional<QueuedRequest> QueueDiscipline::PopOf(Priority priority, Clock::time_point now) {
  return PopBest(now, priority);
}

std::vector<QueuedRequest>::const_iterator QueueDiscipline::Best(
    Clock::time_point now, std::optional<Priority> only) const {
  // The best (class, tenant's last turn, arrival) wins. The queue is bounded
  // (hundreds at most), so a linear scan is cheaper than keeping indexes.
  auto best = queue_.end();
  std::tuple<int, uint64_t, Clock::time_point> best_key{};
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (only && it->priority != *only) continue;
    auto turn = last_served_.find(it->tenant);
    std::tuple key{EffectiveClass(*it, now), turn == last_served_.end() ? 0 : turn->second,
                   it->enqueued};
    if (best == queue_.end() || key < best_key) {
      best = it;
      best_key = key;
    }
  }
  return best;
}

const QueuedRequest* QueueDiscipline::Peek(Clock::time_point now,
                                           std::optional<Priority> only) const {
  auto best = Best(now, only);
  return best == queue_.end() ? nullptr : &*best;
}

std::optional<QueuedRequest> QueueDiscipline::PopBest(Clock::time_point now,
                                                      std::optional<Priority> only) {
  auto best = Best(now, only);
  if (best == queue_.end()) return std::nullopt;
  QueuedRequest chosen = *best;
  queue_.erase(best);
  cost_ -= chosen.cost;
  last_served_[chosen.tenant] = ++turn_;
  return chosen;
}

std::size_t QueueDiscipline::CountOf(Priority priority) const {
  return static_cast<std::size_t>(
      std::count_if(queue_.begin(), queue_.end(),
                    [priority](const QueuedRequest& r) { return r.priority == priority; }));
}

}  // namespace zest::scheduler
