// CrashLoopBreaker: backs off restarting an engine that keeps failing on its
// own, and never holds back one that was killed from outside.
//
// An engine that dies is one of two kinds (engines::ExitedFromOutside):
// - doomed: it could not start (spawn error, an exit before it was ready, a
//   ready timeout), or exited on its own (an error exit, a crash signal such
//   as SIGSEGV or SIGABRT) within seconds of being ready. A broken model, flag or build does
//   this on every start, so each such failure within `window` of the end of the
//   hold before holds the model off twice as long: `initial`, 2x, 4x... up to
//   `max` (1, 2, 4 ... 60 s by default). While it is held, loads fail at once
//   with the last failure's reason instead of starting (and failing) again.
// - killed while serving: killed from outside (SIGKILL or SIGTERM: the OOM
//   killer, an operator) at any time, or crashed after serving a while, or
//   hung (the watchdog has already waited its period). It is restarted at
//   once and never held; the requests it had that had not yet sent the
//   client a byte are retried on the fresh engine (relay/engine_relay.h).
//
// Pure bookkeeping with the time passed in; owned by the InstancePool's
// strand (not thread-safe).
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "core/result.h"

namespace zest::scheduler {

class CrashLoopBreaker {
 public:
  using Clock = std::chrono::steady_clock;
  using Duration = std::chrono::milliseconds;

  // `initial` zero: never holds a model off.
  CrashLoopBreaker(Duration initial, Duration max, Duration window)
      : initial_(initial), max_(max), window_(window) {}

  // Records a failure of a doomed engine; returns how long
  // `model` is now held off (zero when the breaker is off).
  Duration RecordFailure(const std::string& model, const std::string& reason,
                         Clock::time_point now);

  // kEngineFailed naming the failures in a row, the time left and the last
  // reason while the model is held off; Ok otherwise.
  Status Check(const std::string& model, Clock::time_point now) const;

  // Forgets `model`'s failures: a user asked for it explicitly (zest load),
  // perhaps after fixing what made it fail.
  void Forget(const std::string& model) { models_.erase(model); }

 private:
  struct History {
    int in_a_row = 0;  // own failures, each within window_ of the hold before it
    Clock::time_point held_until{};
    std::string last_reason;
  };

  const Duration initial_;
  const Duration max_;
  const Duration window_;
  std::map<std::string, History> models_;
};

}  // namespace zest::scheduler
