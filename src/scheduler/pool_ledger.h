// PoolLedger: the memory ledger over InstancePool's instances
// (instance_pool.h). A load is planned in the memory every other instance
// leaves (placement/policy.h; engines on their way out still hold theirs),
// the fewest idle instances of other models are chosen for eviction when
// that makes it fit (least recently used, weighted by reload cost), and the
// CPU engines share out the cores. It reads the pool's list under the
// pool's lock; it evicts, drains and waits for nothing itself: the pool
// does that with what it finds (InstancePool::AdmitMemory).
//
// Internal to scheduler/. The pool's strand only, but for the reads of the
// list, which take the pool's lock.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "models/model_registry.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"
#include "placement/fit.h"
#include "scheduler/device_book.h"
#include "scheduler/load_planner.h"

namespace zest::scheduler {

struct PoolEntry;  // instance_pool_entry.h

class PoolLedger {
 public:
  using EntryList = std::vector<std::shared_ptr<PoolEntry>>;
  using Entries = std::multimap<std::string, std::shared_ptr<PoolEntry>>;

  // The pool's list (`entries`, by model, and `stopping`, out of it but
  // still holding memory), read under `mu`; its devices and its planner.
  // All must outlive the ledger.
  PoolLedger(Mutex& mu, const Entries& entries, const EntryList& stopping, DeviceBook& devices,
             const LoadPlanner& planner)
      : mu_(mu), entries_(entries), stopping_(stopping), devices_(devices), planner_(planner) {}

  // The plan for `self` (an entry of `model`) in the memory left by every
  // other instance except those in `evicted`; a replica's on a device the
  // model's other instances do not use. RPC workers only `with_workers`.
  // The devices must have been found (DeviceBook::Ensure).
  Result<placement::EnginePlan> PlanAgainst(const models::ModelEntry& model, const PoolEntry& self,
                                            const EntryList& evicted, bool with_workers = false);
  // The fewest idle instances, in eviction order, whose eviction makes
  // `model` fit (with or without the workers): the plan and who goes
  // (`evict`), and the instances in use (`busy`).
  Result<placement::EnginePlan> PlanEvicting(const models::ModelEntry& model, const PoolEntry& self,
                                             bool with_workers, EntryList& evict, EntryList& busy);
  // PlanEvicting on this machine first (with the workers when `on_worker`);
  // then, only for what this machine cannot hold and for a model's first
  // instance, with the RPC workers, looked at again unless
  // `workers_checked` (which it then sets), so that one that went away is
  // planned without.
  boost::asio::awaitable<Result<placement::EnginePlan>> PlanMakingRoom(
      const models::ModelEntry& model, const PoolEntry& self, bool on_worker, bool& workers_checked,
      EntryList& evict, EntryList& busy);
  // Looks at the RPC workers again (DeviceBook::RefreshRemote), without
  // probing those the running engines use.
  boost::asio::awaitable<void> RefreshWorkers();
  // Ready instances of other models than `model` with nothing in flight, in
  // the order to evict them; and the others (`busy`, for the error message).
  EntryList IdleInEvictionOrder(const std::string& model, EntryList& busy);
  // Sets the -t of `self`'s admitted `plan` (and of its entry's copy): the
  // user's engine.threads, else its share of the cores with the other CPU
  // engines (placement/cpu_threads.h).
  void AssignCpuThreads(const models::ModelEntry& model, PoolEntry& self,
                        placement::EnginePlan& plan);
  // How much more RAM the engines hold (and those stopping) than zest may
  // use on `devices`; 0 when within it.
  uint64_t RamOvercommit(const std::vector<placement::PlacementDevice>& devices) const;

  // What the machine could hold of `model` (FitEstimates), with the
  // planner's learned corrections; nullopt before the devices are found.
  std::optional<placement::ModelFit> Fit(const models::ModelEntry& model) const;
  std::optional<placement::ModelFit> FitOfSize(uint64_t file_bytes) const;

  // Models whose `auto` draft was switched off, and what was measured:
  // their later loads are planned without it. Forgotten when an explicit
  // load gives the model options anew.
  void NoteDraftSwitchedOff(const std::string& model, placement::DraftSwitchOff off) {
    draft_switched_off_[model] = std::move(off);
  }
  void ForgetDraftSwitchedOff(const std::string& model) { draft_switched_off_.erase(model); }

 private:
  // The workers running engines use (RefreshRemote must not probe them).
  std::vector<std::string> WorkersInUse() const;

  Mutex& mu_;
  const Entries& entries_;     // under mu_
  const EntryList& stopping_;  // under mu_
  DeviceBook& devices_;
  const LoadPlanner& planner_;  // thread-safe itself
  std::map<std::string, placement::DraftSwitchOff> draft_switched_off_;
};

}  // namespace zest::scheduler
