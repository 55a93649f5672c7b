#include "scheduler/crash_loop.h"

namespace zest::scheduler {

bool CrashLoopBreaker::RecordFailure(const std::string& model, const std::string& reason,
                                     Clock::time_point now) {
  if (limit_ <= 0) return false;
  History& h = models_[model];
  h.last_reason = reason;
  h.failures.push_back(now);
  while (!h.failures.empty() && now - h.failures.front() > window_) h.failures.pop_front();
  if (static_cast<int>(h.failures.size()) < limit_) return false;
  h.held_until = now + cooldown_;
  h.failures.clear();  // after the cooldown, a fresh count
  return true;
}

Status CrashLoopBreaker::Check(const std::string& model, Clock::time_point now) const {
  auto it = models_.find(model);
  if (it == models_.end() || now >= it->second.held_until) return Status::Ok();
  auto left = std::chrono::ceil<std::chrono::seconds>(it->second.held_until - now);
  return EngineFailed("the engine for '" + model + "' failed " + std::to_string(limit_) +
                      " times within " + std::to_string(window_.count()) +
                      " s; not restarting it for another " + std::to_string(left.count()) +
                      " s. Last failure: " + it->second.last_reason);
}

}  // namespace zest::scheduler
