// Admission: per-model queues in front of the engines. A request takes one
// of the model's slots (the engine's --parallel sequences), or one for each
// answer it asks for (`n`), before zest sends it, so zest's queue — with priorities, aging,
// fairness, bounds and deadlines — decides the order, not llama-server's hidden one.
//
//   full queue (count or queued prompt tokens) → kQueueFull, with a
//     Retry-After estimated from the model's recent drain rate;
//   deadline passed while waiting              → kQueueTimeout;
//   client gone while waiting                  → kCancelled, place freed.
//
// Each model's state lives on its own strand. Thread-safe.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "scheduler/capacity.h"
#include "scheduler/queue_discipline.h"

namespace zest::scheduler {

struct AdmissionLimits {
  // Concurrent requests per instance; a model's gate has the slots of all
  // its instances (SetCapacity), this many until it has any.
  int slots = 4;
  std::size_t max_queue = 64;                    // waiting requests per model
  uint64_t max_queued_tokens = 1'000'000;        // estimated prompt tokens waiting
  std::chrono::milliseconds aging_step{10'000};  // wait that lifts a request one class
  // Further slots only high-priority requests may take, so an interactive
  // request starts at once even while background work fills every other
  // slot (the engine runs with slots + reserved_high sequences).
  int reserved_high = 0;
};

struct AdmitRequest {
  std::string model;
  Priority priority = Priority::kNormal;
  std::string tenant;
  Clock::time_point deadline;
  uint64_t cost = 0;  // estimated prompt tokens
  // Slots it takes at once: one per sequence the engine runs for it (a
  // request for n answers runs n). Never more than its class may take in
  // all, so it cannot wait for slots that do not exist.
  int slots = 1;
};

// Cancels a waiting admission (the client disconnected). Use from the
// request's own executor; safe to call after admission too (no effect).
class AdmissionCancel {
 public:
  void Cancel();
  bool cancelled() const;
  // For the gate: `hook` runs on Cancel(); empty detaches.
  void SetHook(std::function<void()> hook);

 private:
  mutable Mutex mu_;
  std::function<void()> hook_ GUARDED_BY(mu_);
  bool cancelled_ GUARDED_BY(mu_) = false;
};

class ModelGate;

// Holds a request's slots; releasing (destroying) it lets the next request in.
class SlotLease {
 public:
  SlotLease() = default;
  SlotLease(std::shared_ptr<ModelGate> gate, int slots) : gate_(std::move(gate)), slots_(slots) {}
  SlotLease(SlotLease&&) = default;
  SlotLease& operator=(SlotLease&&) = default;
  ~SlotLease();  // NOLINT(bugprone-exception-escape): see admission.cc

 private:
  std::shared_ptr<ModelGate> gate_;
  int slots_ = 0;
};

struct QueueStats {
  std::string model;
  int slots = 0;  // including the reserved ones
  int busy = 0;   // slots taken
  std::size_t waiting_high = 0, waiting_normal = 0, waiting_low = 0;
};

class Admission : public CapacityListener {
 public:
  // Every model's gate has limits.slots + limits.reserved_high slots.
  Admission(boost::asio::io_context& io, AdmissionLimits limits);
  // A model's gate has `engines.EngineParallel(model)` slots in all (its
  // per-model `parallel`, or its plan's once loaded), of which up to
  // reserved_high (at most all but one) are reserved, and follows a change
  // (a load with other options). `engines` must outlive this.
  Admission(boost::asio::io_context& io, AdmissionLimits limits, EngineSlots& engines);
  ~Admission() override;

  // Waits for a slot of `request.model`. On kQueueFull, `*retry_after_s`
  // (when given) is set to the suggested wait in seconds.
  boost::asio::awaitable<Result<SlotLease>> Enter(AdmitRequest request,
                                                  std::shared_ptr<AdmissionCancel> cancel,
                                                  int* retry_after_s = nullptr);

  // The model's ready instances changed: `instances` of them with
  // `engine_slots` (their --parallel) together. Its gate then has
  // instances × reserved_high slots for high priority and the rest shared;
  // with no instance, one instance's worth (the limits). Requests already
  // holding slots keep them when the capacity shrinks. Any thread; calls
  // take effect in the order they are made.
  void SetCapacity(const std::string& model, int instances, int engine_slots) override;

  std::vector<QueueStats> Stats();

 private:
  std::shared_ptr<ModelGate> Gate(const std::string& model);

  boost::asio::io_context& io_;
  const AdmissionLimits limits_;
  EngineSlots* const engines_ = nullptr;  // not owned; null: fixed limits
  Mutex mu_;
  std::map<std::string, std::shared_ptr<ModelGate>> gates_ GUARDED_BY(mu_);
  // `limits_` with the slots sized for `model` (see `engines_`).
  AdmissionLimits LimitsFor(const std::string& model) const;
};

}  // namespace zest::scheduler
