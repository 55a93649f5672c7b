// Keep-alive: how long an idle model stays loaded after its last request.
//
// Ollama's semantics, which clients already send: each request may carry
// `keep_alive` ("10m", "1h30m", "45s", a number of seconds, 0 = unload right
// after this request, negative = keep forever); a request without one gets
// the server's default (`scheduler.keep_alive`, 10 min). The latest request
// decides. A model is never unloaded while requests for it are queued or
// running: Begin/End bracket each request, from before it queues until its
// answer is done.
//
// Residency only keeps the books; KeepAliveReaper (keep_alive_reaper.h) asks
// it which models expired and stops their instances.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/duration.h"
#include "core/mutex.h"

namespace zest::scheduler {

// How long to stay loaded once idle (core/duration.h); nullopt = forever.
using KeepAlive = Duration;

class Residency {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Residency(KeepAlive default_keep_alive) : default_(default_keep_alive) {}

  // A request for `model` is queued or running.
  void Begin(const std::string& model);
  // It finished; the model expires `requested` (else the default) from now.
  void End(const std::string& model, const std::optional<KeepAlive>& requested,
           Clock::time_point now = Clock::now());
  // Sets the model's keep-alive from now, as an explicit load does.
  void Set(const std::string& model, KeepAlive keep_alive, Clock::time_point now = Clock::now());
  // The model was unloaded; its books are cleared.
  void Forget(const std::string& model);

  // Models with no request in flight whose keep-alive has run out.
  std::vector<std::string> Expired(Clock::time_point now = Clock::now()) const;

  // When the model will be unloaded if it stays idle; nullopt while busy,
  // kept forever or unknown.
  std::optional<Clock::time_point> ExpiresAt(const std::string& model) const;

  KeepAlive default_keep_alive() const { return default_; }

 private:
  struct Books {
    int busy = 0;
    std::optional<Clock::time_point> expires;  // nullopt = forever
  };

  const KeepAlive default_;
  mutable Mutex mu_;
  std::map<std::string, Books> books_ GUARDED_BY(mu_);
};

// Brackets one request: Begin now, End (with the request's keep_alive) when
// it goes out of scope, whatever path the request took.
class ResidencyHold {
 public:
  ResidencyHold(Residency* residency, std::string model, std::optional<KeepAlive> requested)
      : residency_(residency), model_(std::move(model)), requested_(requested) {
    if (residency_ != nullptr) residency_->Begin(model_);
  }
  ~ResidencyHold() {
    if (residency_ != nullptr) residency_->End(model_, requested_);
  }
  ResidencyHold(const ResidencyHold&) = delete;
  ResidencyHold& operator=(const ResidencyHold&) = delete;

 private:
  Residency* residency_;
  std::string model_;
  std::optional<KeepAlive> requested_;
};

}  // namespace zest::scheduler
