// InstancePool: dispatch to a model's instances and adding or removing
// replicas (see Dispatch, AddReplica and RemoveReplica in instance_pool.h).
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "core/mutex.h"
#include "scheduler/dispatch.h"
#include "scheduler/instance_pool_entry.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

// How often a request that holds an admission slot but finds every instance
// full looks again (only while the model's instances just went down).
constexpr auto kFullRetry = std::chrono::milliseconds(20);

}  // namespace

InstancePool::EntryList InstancePool::EntriesOf(const std::string& model) const {
  EntryList out;
  for (auto [it, end] = entries_.equal_range(model); it != end; ++it) out.push_back(it->second);
  return out;
}

void InstancePool::Erase(const std::shared_ptr<Entry>& entry) {
  for (auto [it, end] = entries_.equal_range(entry->model); it != end; ++it) {
    if (it->second == entry) {
      entries_.erase(it);
      return;
    }
  }
}

void InstancePool::TakeToStop(const std::shared_ptr<Entry>& entry) {
  Erase(entry);
  stopping_.push_back(entry);
}

awaitable<void> InstancePool::StopTaken(std::shared_ptr<Entry> entry, bool keep_conversations,
                                        bool hurried) {
  if (keep_conversations) co_await KeepConversations(entry->instance, hurried);
  co_await TerminateOn(blocking_, entry->instance);
  MutexLock lock(list_mu_);
  std::erase(stopping_, entry);
}

InstanceLease InstancePool::TryReserve(const std::string& model, const std::string& session) {
  std::shared_ptr<Instance> chosen;
  SessionPick pick;
  {
    std::vector<std::shared_ptr<Instance>> ready;
    std::vector<DispatchCandidate> candidates;
    // Under the lock: the in_flight checked here is only raised here, so two
    // requests cannot both take an instance's last slot.
    MutexLock lock(list_mu_);
    const std::optional<pid_t> home = session.empty() ? std::nullopt : affinity_.Find(session);
    std::optional<std::size_t> home_index;
    for (auto [it, end] = entries_.equal_range(model); it != end; ++it) {
      const Entry& entry = *it->second;
      if (entry.state != Entry::State::kReady || entry.draining || !entry.instance->Alive())
        continue;
      // Its draft does not pay: the request waits on the strand for the
      // reload without it (OptionsReload, options_reload.h).
      if (entry.instance->DraftSwitchOff()) continue;
      if (home && entry.instance->pid() == *home) home_index = ready.size();
      ready.push_back(entry.instance);
      candidates.push_back({entry.instance->in_flight.load(), entry.instance->slots(),
                            entry.instance->PerTokenMs()});
    }
    pick = session.empty() ? SessionPick{PickInstance(candidates), AffinityOutcome::kNone}
                           : PickForSession(candidates, home_index, home.has_value());
    if (!pick.index) return {};
    chosen = ready[*pick.index];
    ++chosen->in_flight;
    if (!session.empty()) affinity_.Remember(session, chosen->pid());
  }
  if (pick.outcome != AffinityOutcome::kNone) {
    spdlog::debug("dispatch '{}': session {} to pid {} ({})", model, session.substr(0, 8),
                  chosen->pid(), AffinityOutcomeName(pick.outcome));
    if (events_) events_->SessionDispatched(model, AffinityOutcomeName(pick.outcome));
  }
  return InstanceLease::Adopt(std::move(chosen));
}

InstanceLease InstancePool::TryReserveOther(const std::string& model, const Instance& decode) {
  MutexLock lock(list_mu_);
  for (auto [it, end] = entries_.equal_range(model); it != end; ++it) {
    const Entry& entry = *it->second;
    if (entry.state != Entry::State::kReady || entry.draining) continue;
    const std::shared_ptr<Instance>& other = entry.instance;
    if (other.get() == &decode || other->device() == decode.device() || other->slot_dir.empty() ||
        !other->Alive() || other->in_flight.load() >= other->slots()) {
      continue;
    }
    ++other->in_flight;
    return InstanceLease::Adopt(other);
  }
  return {};
}

awaitable<Result<InstanceLease>> InstancePool::Dispatch(models::ModelEntry model, bool urgent,
                                                        std::string session) {
  InstanceLease lease = TryReserve(model.name, session);
  if (lease.instance()) co_return std::move(lease);
  co_return co_await asio::co_spawn(
      strand_, DispatchOnStrand(std::move(model), urgent, std::move(session)), use_awaitable);
}

awaitable<Result<InstanceLease>> InstancePool::DispatchOnStrand(models::ModelEntry model,
                                                                bool urgent, std::string session) {
  asio::steady_timer pause(strand_);
  while (true) {
    std::optional<config::ModelSettings> configured;  // named: no temporaries in co_await
    Result<std::shared_ptr<Instance>> ready = co_await AcquireOnStrand(model, configured, urgent);
    if (!ready.ok()) co_return ready.status();
    InstanceLease lease = TryReserve(model.name, session);
    if (lease.instance()) co_return std::move(lease);
    // Admission granted a slot the instances no longer have (a replica just
    // went): wait for one to free rather than overfill an engine.
    pause.expires_after(kFullRetry);
    co_await pause.async_wait(asio::as_tuple(use_awaitable));
  }
}

void InstancePool::PublishCapacity(const std::string& model) {
  CapacityListener* listener = capacity_listener_.load();
  if (listener == nullptr) return;
  int instances = 0;
  int slots = 0;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(model)) {
      if (entry->state != Entry::State::kReady || entry->draining) continue;
      ++instances;
      slots += entry->instance->slots();
    }
  }
  listener->SetCapacity(model, instances, slots);
}

awaitable<Status> InstancePool::AddReplica(models::ModelEntry model, std::string reason,
                                           bool by_autoscaler) {
  if (!strand_.running_in_this_thread()) {
    co_return co_await asio::co_spawn(
        strand_, AddReplica(std::move(model), std::move(reason), by_autoscaler), use_awaitable);
  }
  const char* what = by_autoscaler ? "autoscale up" : "replica";
  bool serving = false;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(model.name)) {
      serving = serving || (entry->state == Entry::State::kReady && !entry->draining);
    }
  }
  if (!serving) co_return NotFound("model '" + model.name + "' has no instance to replicate");
  spdlog::info("{} '{}': {}", what, model.name, reason);
  // A replica runs with its first instance's options, on another device.
  config::ModelSettings settings = planner_.Configured(model.name);
  {
    MutexLock lock(list_mu_);
    if (EntryList entries = EntriesOf(model.name); !entries.empty())
      settings = entries.front()->settings;
  }
  Result<std::shared_ptr<Entry>> entry =
      AddEntry(model, std::move(settings), /*urgent=*/false, /*replica=*/true);
  if (!entry.ok()) {
    spdlog::info("{} '{}' not done: {}", what, model.name, entry.status().message());
    co_return entry.status();
  }
  // Named, not a temporary inside co_await (GCC 12 miscompiles those).
  std::shared_ptr<Entry> loading = *entry;
  Result<std::shared_ptr<Instance>> added = co_await Load(model, std::move(loading));
  if (!added.ok()) {
    spdlog::info("{} '{}' not done: {}", what, model.name, added.status().message());
    co_return added.status();
  }
  if (events_ && by_autoscaler) events_->Autoscaled(model.name, "up");
  co_return Status::Ok();
}

awaitable<bool> InstancePool::RemoveReplica(std::string model, pid_t pid, std::string reason) {
  if (!strand_.running_in_this_thread()) {
    co_return co_await asio::co_spawn(
        strand_, RemoveReplica(std::move(model), pid, std::move(reason)), use_awaitable);
  }
  std::shared_ptr<Entry> victim;
  {
    MutexLock lock(list_mu_);
    int ready = 0;
    for (const auto& entry : EntriesOf(model)) {
      if (entry->state != Entry::State::kReady) continue;
      ++ready;
      if (entry->instance->pid() == pid) victim = entry;
    }
    // Idle now and, with dispatch under this same lock, no request can take
    // it after it leaves the list. The last instance is keep-alive's to stop.
    if (!victim || ready < 2 || victim->instance->in_flight.load() > 0) co_return false;
    TakeToStop(victim);
  }
  PublishCapacity(model);
  spdlog::info("autoscale down '{}': stopping its instance on {} (pid {}): {}", model,
               victim->instance->device(), pid, reason);
  // Keep its conversations if it was the one whose slots are saved.
  co_await StopTaken(victim, !victim->replica, /*hurried=*/false);
  if (events_) {
    events_->EngineStopped(model, "autoscale");
    events_->Autoscaled(model, "down");
  }
  co_return true;
}

}  // namespace zest::scheduler
