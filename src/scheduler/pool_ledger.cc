#include "scheduler/pool_ledger.h"

#include <algorithm>
#include <chrono>

#include "placement/eviction.h"
#include "placement/replica.h"
#include "scheduler/instance_pool_entry.h"

namespace zest::scheduler {

Result<placement::EnginePlan> PoolLedger::PlanAgainst(const models::ModelEntry& model,
                                                      const PoolEntry& self,
                                                      const EntryList& evicted, bool with_workers) {
  // Found before any plan (AdmitMemory ensures it).
  const std::vector<placement::PlacementDevice> devices =
      devices_.Snapshot().value_or(std::vector<placement::PlacementDevice>{});
  std::vector<const placement::EnginePlan*> loaded;
  LoadContext context;
  context.replica = self.replica;
  if (auto off = draft_switched_off_.find(model.name); off != draft_switched_off_.end()) {
    context.draft_switched_off = off->second;
  }
  MutexLock lock(mu_);  // the plans of loading entries may still change
  // Engines on their way out hold their memory until they exit.
  for (const auto& entry : stopping_) {
    loaded.push_back(&entry->plan);
    if (entry->plan.on_npu) context.npu_held_by = entry->model;
  }
  for (const auto& [name, entry] : entries_) {
    if (entry.get() == &self || std::find(evicted.begin(), evicted.end(), entry) != evicted.end()) {
      continue;
    }
    loaded.push_back(&entry->plan);
    if (entry->plan.on_npu) context.npu_held_by = name;
    // A loading entry without a plan yet holds nothing and uses no device.
    if (name == model.name && !entry->plan.memory.empty()) {
      context.used.push_back(placement::PrimaryDevice(entry->plan));
    }
  }
  context.free = placement::FreeAfter(devices, loaded);
  if (!with_workers) {
    std::erase_if(context.free, [](const placement::PlacementDevice& d) { return d.remote(); });
  }
  // The options this load was started with (an explicit load's may differ).
  return planner_.Plan(model, self.settings, context);
}

void PoolLedger::AssignCpuThreads(const models::ModelEntry& model, PoolEntry& self,
                                  placement::EnginePlan& plan) {
  MutexLock lock(mu_);
  std::vector<int> running;  // CPU engines resident now, loading ones included
  for (const auto& [name, entry] : entries_) {
    if (entry.get() != &self && entry->plan.cpu_threads > 0)
      running.push_back(entry->plan.cpu_threads);
  }
  planner_.AssignCpuThreads(model, running, plan);
  self.plan.cpu_threads = plan.cpu_threads;
  self.plan.explanation = plan.explanation;
}

std::optional<placement::ModelFit> PoolLedger::Fit(const models::ModelEntry& model) const {
  std::optional<std::vector<placement::PlacementDevice>> devices = devices_.Snapshot();
  if (!devices) return std::nullopt;
  return planner_.Fit(model, *devices);
}

std::optional<placement::ModelFit> PoolLedger::FitOfSize(uint64_t file_bytes) const {
  std::optional<std::vector<placement::PlacementDevice>> devices = devices_.Snapshot();
  if (!devices) return std::nullopt;
  return placement::FitOfSize(file_bytes, *devices);
}

PoolLedger::EntryList PoolLedger::IdleInEvictionOrder(const std::string& model, EntryList& busy) {
  std::vector<placement::EvictionCandidate> idle;
  std::map<std::string, std::shared_ptr<PoolEntry>> by_key;
  const auto now = std::chrono::steady_clock::now();
  MutexLock lock(mu_);
  for (const auto& [name, entry] : entries_) {
    // A model's own instances are never evicted for it (a replica would
    // only replace one of them).
    if (name == model) continue;
    if (entry->state != PoolEntry::State::kReady || entry->instance->in_flight.load() > 0) {
      busy.push_back(entry);
      continue;
    }
    const double idle_s = std::chrono::duration<double>(now - entry->instance->LastUsed()).count();
    // Keyed per instance: a model with replicas has several candidates.
    std::string key = name + "#" + std::to_string(entry->instance->pid());
    by_key[key] = entry;
    idle.push_back({key, idle_s, entry->load_s});
  }
  EntryList order;
  for (const std::string& key : placement::EvictionOrder(std::move(idle))) {
    order.push_back(by_key.at(key));
  }
  return order;
}

Result<placement::EnginePlan> PoolLedger::PlanEvicting(const models::ModelEntry& model,
                                                       const PoolEntry& self, bool with_workers,
                                                       EntryList& evict, EntryList& busy) {
  evict.clear();
  busy.clear();
  Result<placement::EnginePlan> plan = PlanAgainst(model, self, evict, with_workers);
  // The error, if it still does not fit, is the one with every idle
  // instance gone: what is available at best.
  for (const auto& candidate : IdleInEvictionOrder(model.name, busy)) {
    if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    evict.push_back(candidate);
    plan = PlanAgainst(model, self, evict, with_workers);
  }
  return plan;
}

boost::asio::awaitable<Result<placement::EnginePlan>> PoolLedger::PlanMakingRoom(
    const models::ModelEntry& model, const PoolEntry& self, bool on_worker, bool& workers_checked,
    EntryList& evict, EntryList& busy) {
  Result<placement::EnginePlan> plan =
      PlanEvicting(model, self, /*with_workers=*/on_worker, evict, busy);
  if (!plan.ok() && plan.status().code() == ErrorCode::kInsufficientMemory &&
      devices_.has_remote() && !self.replica) {
    if (!workers_checked) co_await RefreshWorkers();
    workers_checked = true;
    plan = PlanEvicting(model, self, /*with_workers=*/true, evict, busy);
  }
  co_return plan;
}

boost::asio::awaitable<void> PoolLedger::RefreshWorkers() {
  std::vector<std::string> in_use = WorkersInUse();  // named (GCC 12)
  co_await devices_.RefreshRemote(std::move(in_use));
}

std::vector<std::string> PoolLedger::WorkersInUse() const {
  std::vector<std::string> in_use;
  MutexLock lock(mu_);
  for (const auto& [name, other] : entries_) {
    in_use.insert(in_use.end(), other->plan.rpc_workers.begin(), other->plan.rpc_workers.end());
  }
  return in_use;
}

uint64_t PoolLedger::RamOvercommit(const std::vector<placement::PlacementDevice>& devices) const {
  MutexLock lock(mu_);
  std::vector<const placement::EnginePlan*> loaded;
  for (const auto& entry : stopping_) loaded.push_back(&entry->plan);
  for (const auto& [name, entry] : entries_) loaded.push_back(&entry->plan);
  return placement::RamOvercommit(devices, loaded);
}

}  // namespace zest::scheduler
