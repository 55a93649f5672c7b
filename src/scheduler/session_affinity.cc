#include "scheduler/session_affinity.h"

namespace zest::scheduler {

const char* AffinityOutcomeName(AffinityOutcome outcome) {
  switch (outcome) {
    case AffinityOutcome::kHit:
      return "hit";
    case AffinityOutcome::kMiss:
      return "miss";
    case AffinityOutcome::kFallback:
      return "fallback";
    case AffinityOutcome::kNone:
      break;
  }
  return "none";
}

SessionPick PickForSession(const std::vector<DispatchCandidate>& candidates,
                           std::optional<std::size_t> home, bool known) {
  if (home && *home < candidates.size() && candidates[*home].in_flight < candidates[*home].slots) {
    return {home, AffinityOutcome::kHit};
  }
  return {PickInstance(candidates), known ? AffinityOutcome::kFallback : AffinityOutcome::kMiss};
}

std::optional<pid_t> SessionAffinity::Find(const std::string& session) {
  auto it = index_.find(session);
  if (it == index_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->second;
}

void SessionAffinity::Remember(const std::string& session, pid_t engine) {
  if (capacity_ == 0) return;
  if (auto it = index_.find(session); it != index_.end()) {
    it->second->second = engine;
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(session, engine);
  index_[session] = order_.begin();
  if (index_.size() > capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
}

}  // namespace zest::scheduler
