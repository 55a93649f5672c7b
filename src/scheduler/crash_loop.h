// CrashLoopBreaker: stops restarting an engine that keeps failing.
//
// An engine that crashes or cannot start `limit` times within `window` is
// held off for `cooldown`: loads of that model fail at once with the last
// failure's reason instead of spawning (and failing) again, so a broken model
// or flag cannot keep a CPU busy with doomed restarts. Pure bookkeeping with
// the time passed in; owned by the InstancePool's strand (not thread-safe).
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>

#include "core/result.h"

namespace zest::scheduler {

class CrashLoopBreaker {
 public:
  using Clock = std::chrono::steady_clock;

  CrashLoopBreaker(int limit, std::chrono::seconds window, std::chrono::seconds cooldown)
      : limit_(limit), window_(window), cooldown_(cooldown) {}

  // Records a failure of `model`'s engine; true when it trips the breaker.
  bool RecordFailure(const std::string& model, const std::string& reason, Clock::time_point now);

  // kEngineFailed naming the failures, the reason and the time left while
  // the model is held off; Ok otherwise.
  Status Check(const std::string& model, Clock::time_point now) const;

 private:
  struct History {
    std::deque<Clock::time_point> failures;  // within window_
    Clock::time_point held_until{};
    std::string last_reason;
  };

  const int limit_;
  const std::chrono::seconds window_;
  const std::chrono::seconds cooldown_;
  std::map<std::string, History> models_;
};

}  // namespace zest::scheduler
