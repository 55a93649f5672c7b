// QueueDiscipline: which waiting request gets the next free slot. Pure logic
// with the time passed in, so it is tested with a fake clock.
//
// Order: priority class (high, normal, low), where every `aging_step` of
// waiting lifts a request one class (so low never starves); within a class,
// tenants (API keys, else client addresses) take turns — fairness by request
// count, deficit round robin with unit cost — and each tenant's requests go
// in arrival order. Not thread-safe: owned by one ModelGate strand.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::scheduler {

enum class Priority { kHigh = 0, kNormal = 1, kLow = 2 };

// "high" | "normal" | "low" (case-insensitive); kInvalidArgument otherwise.
Result<Priority> ParsePriority(std::string_view text);
const char* PriorityName(Priority priority);

using Clock = std::chrono::steady_clock;

struct QueuedRequest {
  uint64_t id = 0;
  Priority priority = Priority::kNormal;
  std::string tenant;
  Clock::time_point enqueued;
  uint64_t cost = 0;  // estimated prompt tokens
  int slots = 1;      // slots it takes at once (the answers it asks for)
};

class QueueDiscipline {
 public:
  explicit QueueDiscipline(std::chrono::milliseconds aging_step) : aging_step_(aging_step) {}

  void Push(QueuedRequest request);
  // False when `id` is not queued (already popped or removed).
  bool Remove(uint64_t id);
  // The next request to serve at time `now`, removed from the queue.
  std::optional<QueuedRequest> Pop(Clock::time_point now);
  // The same among requests that asked for `priority` (for slots reserved
  // to one class).
  std::optional<QueuedRequest> PopOf(Priority priority, Clock::time_point now);
  // What Pop or PopOf (`only`) would return, left in the queue; null when
  // none. Valid until the queue next changes.
  const QueuedRequest* Peek(Clock::time_point now, std::optional<Priority> only = {}) const;

  std::size_t size() const { return queue_.size(); }
  uint64_t cost() const { return cost_; }
  // Waiting requests per original priority class (for metrics).
  std::size_t CountOf(Priority priority) const;

 private:
  int EffectiveClass(const QueuedRequest& request, Clock::time_point now) const;
  std::vector<QueuedRequest>::const_iterator Best(Clock::time_point now,
                                                  std::optional<Priority> only) const;
  std::optional<QueuedRequest> PopBest(Clock::time_point now, std::optional<Priority> only);

  const std::chrono::milliseconds aging_step_;
  std::vector<QueuedRequest> queue_;  // arrival order
  uint64_t cost_ = 0;
  std::map<std::string, uint64_t> last_served_;  // tenant → turn number
  uint64_t turn_ = 0;
};

}  // namespace zest::scheduler
