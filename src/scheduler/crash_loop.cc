#include "scheduler/crash_loop.h"

#include <algorithm>

namespace zest::scheduler {
namespace {

// "1.5 s", "30 s": a hold as a person reads it.
std::string Seconds(CrashLoopBreaker::Duration d) {
  const long long ms = d.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

}  // namespace

CrashLoopBreaker::Duration CrashLoopBreaker::RecordFailure(const std::string& model,
                                                           const std::string& reason,
                                                           Clock::time_point now) {
  if (initial_.count() <= 0) return Duration::zero();
  History& h = models_[model];
  // A failure more than a window after the last hold ended starts a fresh
  // run: the model served (or sat unused) in between.
  if (h.in_a_row > 0 && now - h.held_until > window_) h.in_a_row = 0;
  ++h.in_a_row;
  h.last_reason = reason;
  Duration hold = initial_;
  for (int i = 1; i < h.in_a_row && hold < max_; ++i) hold *= 2;
  hold = std::min(hold, max_);
  h.held_until = now + hold;
  return hold;
}

Status CrashLoopBreaker::Check(const std::string& model, Clock::time_point now) const {
  auto it = models_.find(model);
  if (it == models_.end() || now >= it->second.held_until) return Status::Ok();
  const History& h = it->second;
  auto left = std::chrono::ceil<std::chrono::milliseconds>(h.held_until - now);
  return EngineFailed("the engine for '" + model + "' failed " + std::to_string(h.in_a_row) +
                      (h.in_a_row == 1 ? " time" : " times in a row") +
                      "; not restarting it for another " + Seconds(left) +
                      ". Last failure: " + h.last_reason);
}

}  // namespace zest::scheduler
