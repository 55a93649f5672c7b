// Instance: one running engine process serving one model on a UNIX socket.
// A model may have several (replicas, each on its own device). Created and
// owned by the InstancePool; requests hold a shared_ptr while they talk to
// it, so a stopped instance stays valid (but dead) until the last request
// lets go.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/mutex.h"
#include "engines/engine_adapter.h"
#include "engines/launcher.h"
#include "placement/prompt_cache.h"
#include "scheduler/conversation_book.h"
#include "scheduler/dispatch.h"
#include "scheduler/draft_acceptance.h"
#include "scheduler/slot_owners.h"

namespace zest::scheduler {

class Instance {
 public:
  // `device`: where it computes ("CPU", "Vulkan0"); `slots`: its engine's
  // --parallel, the most requests zest sends it at once.
  Instance(std::string model, std::filesystem::path socket,
           std::unique_ptr<engines::EngineProcess> process, std::string device = "CPU",
           int slots = 1)
      : slot_owners(slots),
        model_(std::move(model)),
        socket_(std::move(socket)),
        process_(std::move(process)),
        device_(std::move(device)),
        slots_(slots),
        started_at_(std::chrono::steady_clock::now()),
        last_used_ns_(started_at_.time_since_epoch().count()) {}

  const std::string& model() const { return model_; }
  const std::filesystem::path& socket() const { return socket_; }
  pid_t pid() const { return process_->pid(); }
  engines::EngineProcess& process() { return *process_; }
  std::chrono::steady_clock::time_point started_at() const { return started_at_; }
  bool Alive() { return process_->Running(); }
  // Whether its engine has exited, killed from outside (the OOM killer, an
  // operator, the watchdog: engines::Process::KilledFromOutside) rather
  // than ending on its own.
  bool KilledFromOutside() {
    std::optional<int> exit = process_->ExitStatus();
    return exit.has_value() && engines::Process::KilledFromOutside(*exit);
  }
  const std::string& device() const { return device_; }
  int slots() const { return slots_; }

  // Its engine's --slot-save-path (where slot save/restore files live);
  // empty = none. Set before the instance is published, then read-only.
  std::filesystem::path slot_dir;
  // The name its engine knows the model by, when that is not zest's (the
  // relay puts it in each request and zest's back in each answer):
  // FastFlowLM's tag (EngineAdapter::EngineModelName). Set before the
  // instance is published, then read-only, like `engine`.
  std::string engine_model;
  // The engine that runs it (engines/engine_adapter.h): how the relay
  // talks to it and what answers once it is up. Set before the instance
  // is published, then read-only; null only in tests.
  const engines::EngineAdapter* engine = nullptr;
  // How well its draft model guesses (draft_acceptance.h); null without a
  // draft model. Set before the instance is published, then read-only.
  std::unique_ptr<DraftAcceptance> draft_acceptance;
  // Set when its `auto` draft does not pay: the pool sends it no new
  // requests and reloads the model without the draft once it is idle.
  std::optional<placement::DraftSwitchOff> DraftSwitchOff() const {
    return draft_acceptance ? draft_acceptance->SwitchOff() : std::nullopt;
  }
  const char* ready_path() const { return engine ? engine->ready_path() : "/health"; }

  // Its engine's host-RAM prompt cache (placement/prompt_cache.h): its
  // shape from the plan (ceiling 0: none), set before the instance is
  // published, then read-only; and the conversations it served, recorded
  // as their turns end (InstanceDispatch::TurnEnded).
  placement::PromptCacheShape prompt_cache;
  ConversationBook conversations;
  // What the memory ledger holds for that cache now. Any thread.
  uint64_t PromptCacheReserved() const {
    return placement::PromptCacheReserved(conversations.TokensNewestFirst(), prompt_cache);
  }

  // Which API key filled each of its slots last: on a server with keys,
  // each request's slot, and whether it may reuse the engine's cache there
  // (slot_owners.h). Any thread.
  SlotOwners slot_owners;

  // Requests dispatched to this instance and not finished. Raised only by
  // the pool's dispatch (under its lock, never past slots()); lowered when
  // an InstanceLease ends.
  std::atomic<int> in_flight{0};

  // Generation speed measured on real answers (the engine's own timings),
  // as a moving average; nullopt until the first. Any thread.
  void RecordPerTokenMs(double ms) { per_token_ms_.Record(ms); }
  std::optional<double> PerTokenMs() const { return per_token_ms_.Get(); }
  // The same for prompt processing (prefill), per prompt token: where the
  // prefill/decode split (relay/prefill_handoff.h) sends a prompt.
  void RecordPromptMsPerToken(double ms) { prompt_ms_per_token_.Record(ms); }
  std::optional<double> PromptMsPerToken() const { return prompt_ms_per_token_.Get(); }

  // When a request last finished here (or the instance started): idle time
  // for eviction.
  std::chrono::steady_clock::time_point LastUsed() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_used_ns_.load()));
  }
  void Touch() { last_used_ns_ = std::chrono::steady_clock::now().time_since_epoch().count(); }

 private:
  const std::string model_;
  const std::filesystem::path socket_;
  const std::unique_ptr<engines::EngineProcess> process_;
  const std::string device_;
  const int slots_;
  const std::chrono::steady_clock::time_point started_at_;
  std::atomic<std::chrono::steady_clock::rep> last_used_ns_;
  // A moving average (Ewma) of positive samples, safe from any thread.
  class MeasuredMs {
   public:
    void Record(double ms) {
      if (!(ms > 0)) return;
      MutexLock lock(mu_);
      average_ = Ewma(average_, ms);
    }
    std::optional<double> Get() const {
      MutexLock lock(mu_);
      return average_;
    }

   private:
    mutable Mutex mu_;
    std::optional<double> average_ GUARDED_BY(mu_);
  };
  MeasuredMs per_token_ms_;
  MeasuredMs prompt_ms_per_token_;
};

// One request's slot on an instance, from dispatch until it is destroyed
// (or Release()d): it counts in the instance's in_flight. Movable.
class InstanceLease {
 public:
  InstanceLease() = default;
  // Adopts a slot the dispatch already counted in `instance->in_flight`.
  static InstanceLease Adopt(std::shared_ptr<Instance> instance) {
    InstanceLease lease;
    lease.instance_ = std::move(instance);
    return lease;
  }
  InstanceLease(InstanceLease&& other) noexcept : instance_(std::move(other.instance_)) {}
  InstanceLease& operator=(InstanceLease&& other) noexcept {
    if (this != &other) {
      Release();
      instance_ = std::move(other.instance_);
    }
    return *this;
  }
  ~InstanceLease() { Release(); }

  const std::shared_ptr<Instance>& instance() const { return instance_; }
  Instance* operator->() const { return instance_.get(); }
  void Release() {
    if (!instance_) return;
    instance_->Touch();
    --instance_->in_flight;
    instance_.reset();
  }

 private:
  std::shared_ptr<Instance> instance_;
};

}  // namespace zest::scheduler
