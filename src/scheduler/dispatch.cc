#include "scheduler/dispatch.h"

#include <algorithm>
#include <limits>

namespace zest::scheduler {

std::optional<std::size_t> PickInstance(const std::vector<DispatchCandidate>& candidates) {
  std::optional<double> best_known;
  for (const DispatchCandidate& c : candidates) {
    if (c.per_token_ms)
      best_known = std::min(best_known.value_or(*c.per_token_ms), *c.per_token_ms);
  }
  // Nothing measured yet: every instance is as fast as any other.
  const double fallback = best_known.value_or(1.0);
  std::optional<std::size_t> pick;
  double pick_cost = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const DispatchCandidate& c = candidates[i];
    if (c.in_flight >= c.slots) continue;
    const double cost = (c.in_flight + 1) * c.per_token_ms.value_or(fallback);
    if (cost < pick_cost) {
      pick = i;
      pick_cost = cost;
    }
  }
  return pick;
}

double Ewma(std::optional<double> average, double sample, double alpha) {
  return average ? alpha * sample + (1 - alpha) * *average : sample;
}

}  // namespace zest::scheduler
