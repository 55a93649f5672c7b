#include "scheduler/admission.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cmath>
#include <deque>

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

constexpr auto kDrainWindow = std::chrono::seconds(60);

}  // namespace

void AdmissionCancel::Cancel() {
  std::function<void()> hook;
  {
    MutexLock lock(mu_);
    cancelled_ = true;
    hook = std::exchange(hook_, nullptr);
  }
  if (hook) hook();
}

bool AdmissionCancel::cancelled() const {
  MutexLock lock(mu_);
  return cancelled_;
}

void AdmissionCancel::SetHook(std::function<void()> hook) {
  MutexLock lock(mu_);
  hook_ = std::move(hook);
}

// One model's slots and queue. All members but stats_ are used on strand_.
class ModelGate : public std::enable_shared_from_this<ModelGate> {
 public:
  ModelGate(asio::io_context& io, AdmissionLimits limits, std::string model)
      : strand_(asio::make_strand(io)),
        limits_(limits),
        queue_(limits.aging_step),
        slots_(limits.slots),
        reserved_(limits.reserved_high),
        stats_{std::move(model), limits.slots + limits.reserved_high, 0, 0, 0, 0},
        sized_slots_(limits.slots),
        sized_reserved_(limits.reserved_high) {}

  asio::strand<asio::io_context::executor_type>& strand() { return strand_; }

  awaitable<Result<SlotLease>> EnterOnStrand(AdmitRequest request,
                                             std::shared_ptr<AdmissionCancel> cancel,
                                             int* retry_after_s);
  // From any thread: gives a request's slots back.
  void Release(int slots) {
    asio::post(strand_, [self = shared_from_this(), slots] { self->ReleaseOnStrand(slots); });
  }
  // From any thread, in order: the model's instances changed (see
  // Admission::SetCapacity).
  void SetCapacity(int instances, int engine_slots) {
    asio::post(strand_, [self = shared_from_this(), instances, engine_slots] {
      self->SetCapacityOnStrand(instances, engine_slots);
    });
  }

  // From any thread: one instance's worth is now `slots` shared and
  // `reserved` high-priority slots (the model's engine is configured or was
  // loaded with another --parallel). It sizes the gate while the model has no
  // ready instance; SetCapacity sizes it from the instances themselves.
  void Resize(int slots, int reserved) {
    {
      MutexLock lock(stats_mu_);
      if (sized_slots_ == slots && sized_reserved_ == reserved) return;
      sized_slots_ = slots;
      sized_reserved_ = reserved;
    }
    asio::post(strand_, [self = shared_from_this(), slots, reserved] {
      self->limits_.slots = slots;
      self->limits_.reserved_high = reserved;
      if (self->instances_ <= 0) self->SetCapacityOnStrand(0, 0);
    });
  }

  QueueStats Stats() {
    MutexLock lock(stats_mu_);
    return stats_;
  }

 private:
  struct Waiter {
    explicit Waiter(const asio::any_io_executor& ex) : timer(ex) {}
    asio::steady_timer timer;  // expires at the deadline; cancelled to wake early
    bool granted = false;
    bool cancelled = false;
    int slots = 0;  // granted: how many it took
  };

  // The slots a request of `priority` may take in all: the shared ones, and
  // for high priority the reserved ones too.
  int Share(Priority priority) const {
    return priority == Priority::kHigh ? slots_ + reserved_ : slots_;
  }
  // What a request asking for `slots` takes: at most its whole share.
  int Take(Priority priority, int slots) const {
    return std::clamp(slots, 1, std::max(Share(priority), 1));
  }

  // Free slots enough and nobody queued ahead: the shared slots go in queue
  // order; a high request, which goes before every lower one queued, takes
  // a shared or reserved one when no high one waits.
  bool CanStartNow(Priority priority, int take) const {
    if (busy_ + take <= slots_ && queue_.size() == 0) return true;
    return priority == Priority::kHigh && busy_ + take <= slots_ + reserved_ &&
           queue_.CountOf(Priority::kHigh) == 0;
  }

  bool MustReject(const AdmitRequest& request) const {
    if (queue_.size() >= limits_.max_queue) return true;
    return queue_.size() > 0 && queue_.cost() + request.cost > limits_.max_queued_tokens;
  }
  void ReleaseOnStrand(int slots);
  void SetCapacityOnStrand(int instances, int engine_slots);
  void GrantNext();
  void CancelWaiter(uint64_t id);
  int RetryAfterSeconds();
  void PublishStats();

  asio::strand<asio::io_context::executor_type> strand_;
  AdmissionLimits limits_;  // slots changed by Resize, on strand_
  QueueDiscipline queue_;
  // Shared slots and those only high priority may take, over all the
  // model's instances (one instance's worth until it has any).
  int slots_;
  int reserved_;
  int instances_ = 0;  // ready instances behind the gate (SetCapacity)
  std::map<uint64_t, std::shared_ptr<Waiter>> waiters_;
  int busy_ = 0;
  uint64_t next_id_ = 0;
  std::deque<Clock::time_point> completions_;  // within kDrainWindow
  Mutex stats_mu_;
  QueueStats stats_ GUARDED_BY(stats_mu_);
  int sized_slots_ GUARDED_BY(stats_mu_);  // one instance's worth last asked for
  int sized_reserved_ GUARDED_BY(stats_mu_);
};

awaitable<Result<SlotLease>> ModelGate::EnterOnStrand(AdmitRequest request,
                                                      std::shared_ptr<AdmissionCancel> cancel,
                                                      int* retry_after_s) {
  if (cancel && cancel->cancelled()) co_return Status(ErrorCode::kCancelled, "client gone");
  if (const int take = Take(request.priority, request.slots); CanStartNow(request.priority, take)) {
    busy_ += take;
    PublishStats();
    co_return SlotLease(shared_from_this(), take);
  }
  if (MustReject(request)) {
    if (retry_after_s != nullptr) *retry_after_s = RetryAfterSeconds();
    co_return Status(ErrorCode::kQueueFull, "the queue for model '" + request.model +
                                                "' is full (" + std::to_string(queue_.size()) +
                                                " waiting); retry later");
  }
  uint64_t id = ++next_id_;
  auto waiter = std::make_shared<Waiter>(strand_);
  waiter->timer.expires_at(request.deadline);
  auto enqueued = Clock::now();
  queue_.Push({id, request.priority, request.tenant, enqueued, request.cost, request.slots});
  waiters_[id] = waiter;
  PublishStats();
  if (cancel) {
    cancel->SetHook([self = shared_from_this(), id] {
      asio::post(self->strand_, [self, id] { self->CancelWaiter(id); });
    });
  }
  co_await waiter->timer.async_wait(asio::as_tuple(use_awaitable));
  if (cancel) cancel->SetHook(nullptr);
  waiters_.erase(id);
  if (waiter->granted) co_return SlotLease(shared_from_this(), waiter->slots);
  queue_.Remove(id);
  PublishStats();
  if (waiter->cancelled) co_return Status(ErrorCode::kCancelled, "client gone while queued");
  double waited = std::chrono::duration<double>(Clock::now() - enqueued).count();
  co_return Status(ErrorCode::kQueueTimeout,
                   "waited " + std::to_string(static_cast<int>(std::lround(waited))) +
                       " s in the queue for model '" + request.model + "' without getting a slot");
}

void ModelGate::ReleaseOnStrand(int slots) {
  busy_ -= slots;
  auto now = Clock::now();
  completions_.push_back(now);
  while (!completions_.empty() && now - completions_.front() > kDrainWindow)
    completions_.pop_front();
  GrantNext();
  PublishStats();
}

void ModelGate::SetCapacityOnStrand(int instances, int engine_slots) {
  instances_ = instances;
  if (instances <= 0) {
    // None ready (not loaded, loading, or draining): one instance's worth,
    // so requests queue for the load as they always did.
    slots_ = limits_.slots;
    reserved_ = limits_.reserved_high;
  } else {
    reserved_ = std::min(instances * limits_.reserved_high, std::max(engine_slots - 1, 0));
    slots_ = std::max(engine_slots - reserved_, 1);
  }
  GrantNext();
  PublishStats();
}

void ModelGate::GrantNext() {
  const Clock::time_point now = Clock::now();
  while (busy_ < slots_ + reserved_) {
    const bool shared = busy_ < slots_;
    const QueuedRequest* next = shared ? queue_.Peek(now) : queue_.Peek(now, Priority::kHigh);
    if (next == nullptr) return;
    // The next in order waits until its slots are free; none behind it
    // goes first, so a request for several answers is not starved.
    const int take = Take(next->priority, next->slots);
    if (busy_ + take > Share(next->priority)) return;
    const uint64_t id = next->id;
    if (shared) {
      queue_.Pop(now);
    } else {
      queue_.PopOf(Priority::kHigh, now);
    }
    auto it = waiters_.find(id);
    if (it == waiters_.end() || it->second->cancelled) continue;
    it->second->granted = true;
    it->second->slots = take;
    busy_ += take;
    it->second->timer.cancel();
  }
}

void ModelGate::CancelWaiter(uint64_t id) {
  auto it = waiters_.find(id);
  if (it == waiters_.end() || it->second->granted) return;
  it->second->cancelled = true;
  it->second->timer.cancel();
}

// Seconds until a place is likely free: the queue ahead divided by the rate
// requests finished at over the last minute (1 to 60 s).
int RetryAfterSecondsFor(std::size_t waiting, const std::deque<Clock::time_point>& completions) {
  if (completions.size() < 2) return static_cast<int>(std::min<std::size_t>(60, 1 + waiting));
  double span = std::chrono::duration<double>(completions.back() - completions.front()).count();
  double rate = static_cast<double>(completions.size() - 1) / std::max(span, 1.0);
  return static_cast<int>(std::clamp(std::ceil(static_cast<double>(waiting) / rate), 1.0, 60.0));
}

int ModelGate::RetryAfterSeconds() { return RetryAfterSecondsFor(queue_.size(), completions_); }

void ModelGate::PublishStats() {
  MutexLock lock(stats_mu_);
  stats_.slots = slots_ + reserved_;
  stats_.busy = busy_;
  stats_.waiting_high = queue_.CountOf(Priority::kHigh);
  stats_.waiting_normal = queue_.CountOf(Priority::kNormal);
  stats_.waiting_low = queue_.CountOf(Priority::kLow);
}

// Release posts to the gate's strand: only an allocation can throw there.
SlotLease::~SlotLease() {  // NOLINT(bugprone-exception-escape)
  if (gate_) gate_->Release(slots_);
}

Admission::Admission(asio::io_context& io, AdmissionLimits limits) : io_(io), limits_(limits) {}
Admission::Admission(asio::io_context& io, AdmissionLimits limits, EngineSlots& engines)
    : io_(io), limits_(limits), engines_(&engines) {}
Admission::~Admission() = default;

AdmissionLimits Admission::LimitsFor(const std::string& model) const {
  AdmissionLimits limits = limits_;
  if (engines_ == nullptr) return limits;
  const int total = std::max(engines_->EngineParallel(model), 1);
  limits.reserved_high = std::min(limits_.reserved_high, total - 1);
  limits.slots = total - limits.reserved_high;
  return limits;
}

std::shared_ptr<ModelGate> Admission::Gate(const std::string& model) {
  // Sized from the model's engine on every entry, so the gate follows a
  // reload with another --parallel. Asked before taking mu_ (it locks the pool).
  AdmissionLimits limits = LimitsFor(model);
  std::shared_ptr<ModelGate> gate;
  {
    MutexLock lock(mu_);
    auto& slot = gates_[model];
    if (!slot) slot = std::make_shared<ModelGate>(io_, limits, model);
    gate = slot;
  }
  gate->Resize(limits.slots, limits.reserved_high);
  return gate;
}

awaitable<Result<SlotLease>> Admission::Enter(AdmitRequest request,
                                              std::shared_ptr<AdmissionCancel> cancel,
                                              int* retry_after_s) {
  std::shared_ptr<ModelGate> gate = Gate(request.model);
  // A member coroutine on the gate's strand; the caller resumes on its own.
  co_return co_await asio::co_spawn(
      gate->strand(), gate->EnterOnStrand(std::move(request), std::move(cancel), retry_after_s),
      use_awaitable);
}

void Admission::SetCapacity(const std::string& model, int instances, int engine_slots) {
  // Not Gate(): the pool calls this with its list lock held, and sizing a
  // gate asks the pool.
  std::shared_ptr<ModelGate> gate;
  {
    MutexLock lock(mu_);
    auto& slot = gates_[model];
    if (!slot) slot = std::make_shared<ModelGate>(io_, limits_, model);
    gate = slot;
  }
  gate->SetCapacity(instances, engine_slots);
}

std::vector<QueueStats> Admission::Stats() {
  std::vector<std::shared_ptr<ModelGate>> gates;
  {
    MutexLock lock(mu_);
    for (auto& [name, gate] : gates_) gates.push_back(gate);
  }
  std::vector<QueueStats> out;
  for (auto& gate : gates) out.push_back(gate->Stats());
  return out;
}

}  // namespace zest::scheduler
