// Autoscaler: when a model gets another instance (a replica on another
// device) and when an extra one goes. The decision only; AutoscaleLoop
// (autoscale_loop.h) feeds it the queues and instances twice a second and
// carries its decisions out. Pure, tested with a fake clock.
//
//   up:   the model's queue stays above `queue_per_slot` waiting requests
//         per slot for `window` (requests would wait at least one whole
//         answer), it has fewer than `max_replicas` instances and none is
//         starting. Pressure must then last another window before the next.
//   down: an instance has had nothing in flight for `idle` while the model
//         has more than one ready and nothing queued; of those, the slowest
//         goes (highest measured time per token; never measured counts as
//         slowest), then the one idle longest, so the model stays on its
//         fastest device. The last instance is never removed: keep-alive
//         unloads it.
//
// Not thread-safe: used by one loop.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zest::scheduler {

struct AutoscaleParams {
  bool enabled = true;
  int max_replicas = 2;                      // instances per model, the first included
  std::chrono::milliseconds window{10'000};  // how long pressure lasts before adding one
  std::chrono::milliseconds idle{60'000};    // how long an extra instance idles before it goes
  double queue_per_slot = 1.0;               // waiting requests per slot that count as pressure
};

// One model as the loop sees it at one tick.
struct ModelLoad {
  using Clock = std::chrono::steady_clock;
  struct Instance {
    pid_t pid = 0;
    int in_flight = 0;
    Clock::time_point last_used;         // when its last request finished (or it started)
    std::optional<double> per_token_ms;  // measured generation speed; unset = never measured
  };
  std::string model;
  std::size_t queued = 0;  // waiting for a slot
  int slots = 0;           // the model's admission slots (all its instances)
  int loading = 0;         // instances starting
  // False while a failed attempt (no device or memory left) is backed off.
  bool may_add = true;
  std::vector<Instance> ready;
};

struct AutoscaleDecision {
  enum class Action { kNone, kUp, kDown };
  Action action = Action::kNone;
  pid_t pid = 0;       // kDown: the instance to stop
  std::string reason;  // for the log: "queue 6 for 10 s > 1.0 per slot × 5 slots"
};

class Autoscaler {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Autoscaler(AutoscaleParams params) : params_(params) {}

  AutoscaleDecision Decide(const ModelLoad& load, Clock::time_point now);
  // Drops the state of models not in `models` (unloaded ones).
  void Retain(const std::vector<std::string>& models);

 private:
  AutoscaleDecision DecideUp(const ModelLoad& load, Clock::time_point now);
  AutoscaleDecision DecideDown(const ModelLoad& load, Clock::time_point now) const;

  const AutoscaleParams params_;
  std::map<std::string, Clock::time_point> pressured_since_;  // by model
};

}  // namespace zest::scheduler
