// InstancePool: starts, finds and stops engine instances. A model has one
// instance, or several (replicas, each on a device the others do not use)
// when the autoscaler adds them; Dispatch sends each request to the one
// expected to finish it first (dispatch.h), never past its slots.
//
// The first request for a model starts llama-server for it and waits for
// readiness (polling /health on its socket every ~20 ms, failing fast when
// the process exits); concurrent requests for the same model wait on that
// one load, while loads of different models proceed side by side. All pool
// state lives on one strand, so there are no locks around it and no global
// lock held across a load.
//
// Thread-safe: every public method may be called from any coroutine/thread.
#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/mutex.h"
#include "core/result.h"
#include "engines/engine_set.h"
#include "models/model_registry.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"
#include "placement/fit.h"
#include "placement/memory_correction.h"
#include "placement/policy.h"
#include "scheduler/capacity.h"
#include "scheduler/crash_loop.h"
#include "scheduler/device_book.h"
#include "scheduler/engine_starter.h"
#include "scheduler/fit_estimates.h"
#include "scheduler/instance.h"
#include "scheduler/instance_directory.h"
#include "scheduler/instance_dispatch.h"
#include "scheduler/instance_lifecycle.h"
#include "scheduler/load_planner.h"
#include "scheduler/options_reload.h"
#include "scheduler/pool_events.h"
#include "scheduler/pool_ledger.h"
#include "scheduler/pool_options.h"
#include "scheduler/session_affinity.h"
#include "scheduler/slot_dirs.h"

namespace zest::scheduler {

class InstancePool : public EngineSlots,
                     public InstanceDirectory,
                     public InstanceLifecycle,
                     public InstanceDispatch,
                     public FitEstimates {
 public:
  // `events` (may be null) hears of engine lifecycle events; it must
  // outlive the pool.
  InstancePool(boost::asio::io_context& io, PoolOptions options, PoolEvents* events = nullptr);
  ~InstancePool() override;

  // A ready instance for `model`, started if needed. Before starting one the
  // memory ledger must admit it: it is placed (placement/policy.h) in the
  // memory the other instances leave, evicting idle ones (least recently
  // used, weighted by reload cost; never one with requests in flight) when
  // that makes it fit. Errors: kInsufficientMemory (needed vs available,
  // per device) when it cannot fit; kInvalidArgument for bad per-model
  // options; kEngineFailed with the engine's last output lines when it
  // exits or never gets ready; kUnavailable when no engine is installed.
  // `urgent` (a high-priority request, an explicit load): if the model must
  // wait for memory held by busy instances, one of them is drained for it.
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> Acquire(models::ModelEntry model,
                                                                    bool urgent = false);

  // InstanceLifecycle (instance_lifecycle.h): loads a user asks for,
  // replicas, stops, and the watchdog's kills.
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> ExplicitLoad(
      models::ModelEntry model, std::optional<config::ModelSettings> settings) override;
  boost::asio::awaitable<Status> AddReplica(models::ModelEntry model, std::string reason,
                                            bool by_autoscaler) override;
  boost::asio::awaitable<bool> RemoveReplica(std::string model, pid_t pid,
                                             std::string reason) override;
  boost::asio::awaitable<Status> Stop(std::string model, StopReason reason) override;
  boost::asio::awaitable<void> KillHung(std::string model, pid_t pid) override;
  boost::asio::awaitable<void> ForgetExited() override;

  // The engine's parallel sequences for `model`: its plan's once loaded,
  // else its options' `parallel`, else the server's. For sizing the model's
  // admission gate. Any thread.
  int EngineParallel(const std::string& model) override;

  // InstanceDispatch (instance_dispatch.h): the request path. Dispatch
  // loads the first instance as Acquire does.
  boost::asio::awaitable<Result<InstanceLease>> Dispatch(models::ModelEntry model, bool urgent,
                                                         std::string session) override;
  InstanceLease TryReserveOther(const std::string& model, const Instance& decode) override;
  boost::asio::awaitable<void> ReportBroken(std::shared_ptr<Instance> instance) override;
  void TurnEnded(const std::shared_ptr<Instance>& instance, const std::string& session,
                 uint64_t tokens) override;

  std::vector<InstanceStatus> List() override;

  // FitEstimates (fit_estimates.h), with the planner's learned corrections
  // (PoolLedger).
  std::optional<placement::ModelFit> Fit(const models::ModelEntry& model) override;
  std::optional<placement::ModelFit> FitOfSize(uint64_t file_bytes) override;

  std::shared_ptr<Instance> Find(const std::string& model) override;

  // Told, from the pool's strand, whenever the instances that take requests
  // for a model change (admission sizes the model's gate with it). Set it
  // before serving and clear it (null) before `listener` goes.
  void SetCapacityListener(CapacityListener* listener) { capacity_listener_.store(listener); }

  // Stops every engine; blocks. Call at shutdown after the server stopped.
  void StopAll();

 private:
  using Entry = PoolEntry;  // instance_pool_entry.h
  using EntryList = PoolLedger::EntryList;
  // The model's entries, first instance first. Caller holds list_mu_.
  EntryList EntriesOf(const std::string& model) const;
  void Erase(const std::shared_ptr<Entry>& entry);  // caller holds list_mu_
  // Takes `entry` out of the list to stop it; its engine still
  // holds its memory (counted in PoolLedger::PlanAgainst) until StopTaken has kept its
  // conversations and seen it exit. Caller holds list_mu_.
  void TakeToStop(const std::shared_ptr<Entry>& entry);
  // `hurried`: another model's load waits for it (session_tier.h).
  boost::asio::awaitable<void> StopTaken(std::shared_ptr<Entry> entry, bool keep_conversations,
                                         bool hurried);
  // Takes a slot on the best ready instance of `model` (dispatch.h), the
  // session's own while it has one free (session_affinity.h); an empty
  // lease when none is ready or every one is full. Any thread.
  InstanceLease TryReserve(const std::string& model, const std::string& session);
  // Tells the capacity listener what takes requests for `model` now. Strand only.
  void PublishCapacity(const std::string& model);
  boost::asio::awaitable<Result<InstanceLease>> DispatchOnStrand(models::ModelEntry model,
                                                                 bool urgent, std::string session);
  // `settings` unset: the configured ones, and any loaded instance will do.
  // `explicit_load` (a user's): the crash-loop breaker's hold is lifted
  // first.
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> AcquireOnStrand(
      models::ModelEntry model, std::optional<config::ModelSettings> settings, bool urgent,
      bool explicit_load = false);
  // Lists a new instance of `model` (loading): its first, or with `replica`
  // another one on an unused device (no memory wait, no draining for it).
  // Fails at once while the crash-loop breaker holds the model off.
  Result<std::shared_ptr<Entry>> AddEntry(const models::ModelEntry& model,
                                          config::ModelSettings settings, bool urgent,
                                          bool replica);
  // Loads `entry` (from AddEntry): memory, spawn, readiness.
  boost::asio::awaitable<Result<std::shared_ptr<Instance>>> Load(const models::ModelEntry& model,
                                                                 std::shared_ptr<Entry> entry);
  // Spawns the engine for `entry`'s admitted `plan` on `socket` (not yet
  // ready); counts a start that failed for the events. Strand only.
  Result<std::shared_ptr<Instance>> StartEngine(const models::ModelEntry& model, Entry& entry,
                                                const placement::EnginePlan& plan,
                                                const std::filesystem::path& socket);
  // An engine that never got ready: noted for the breaker (unless killed
  // from outside or its RPC workers may be gone), stopped, its load failed.
  boost::asio::awaitable<void> FailLoad(const models::ModelEntry& model,
                                        std::shared_ptr<Entry> entry,
                                        std::shared_ptr<Instance> instance,
                                        const placement::EnginePlan& plan, Status why);
  // Ends `entry`'s load with `error` (Ok: ready), wakes those waiting on it,
  // and forgets a failed one.
  void FinishLoad(const std::shared_ptr<Entry>& entry, Status error);
  // Memory admission (see Acquire). Sets entry.plan before evicting, so
  // loads interleaving on the strand see this one's reservation.
  boost::asio::awaitable<Result<placement::EnginePlan>> AdmitMemory(const models::ModelEntry& model,
                                                                    Entry& entry);
  // One load's wait for memory (AdmitMemory).
  struct MemoryWait {
    std::chrono::steady_clock::time_point until;  // placement.memory_wait_s from its start
    bool on_worker = false;                       // planned with the RPC workers from the start
    bool workers_checked = false;                 // the workers were looked at again for it
    EntryList evict;                              // the idle instances that go to make room
    std::shared_ptr<Entry> drained;               // the busy instance it is emptying, if any
  };
  // While `plan` says the memory is held by instances in use: waits for
  // them to go idle (draining one for an urgent load) until they would not
  // make room or `wait.until`, planning again each time; the evictions
  // that make room in `wait.evict`.
  boost::asio::awaitable<Result<placement::EnginePlan>> WaitForMemory(
      const models::ModelEntry& model, Entry& entry, Result<placement::EnginePlan> plan,
      MemoryWait& wait);
  // Marks the first ready instance in `busy` as draining (no new requests);
  // returns it, or null when none could be.
  std::shared_ptr<Entry> StartDraining(const EntryList& busy, const std::string& for_model);
  void StopDraining(const std::shared_ptr<Entry>& entry);
  // Stops `entry`'s instance if it is still idle; false if it got a request meanwhile.
  boost::asio::awaitable<bool> EvictIfIdle(std::shared_ptr<Entry> entry, std::string reason);
  // After `grown`'s prompt cache grew past what the ledger held for it:
  // while what the engines hold is over the RAM zest may use, evicts idle
  // instances of other models (eviction order). Strand only.
  boost::asio::awaitable<void> MakeRoomForCache(std::string grown);
  boost::asio::awaitable<void> ForgetIfDead(std::shared_ptr<Instance> instance);
  // Before an idle first instance stops: its slots (slot_cache.h) and the
  // conversations it served (session_tier.h) are saved for its next load.
  boost::asio::awaitable<void> KeepConversations(std::shared_ptr<Instance> instance, bool hurried);

  const PoolOptions options_;
  const SlotDirs slot_dirs_;  // from options_
  const EngineStarter starter_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  // Terminate() blocks for up to the grace period; it runs here, not on I/O threads.
  boost::asio::thread_pool blocking_{1};
  // By model; a model's first instance first. Changed on strand_ only, under
  // list_mu_ (which also lets List(), Find() and dispatch read it anywhere).
  std::multimap<std::string, std::shared_ptr<Entry>> entries_;
  // Out of entries_, still running while they stop (TakeToStop): keeping
  // their conversations may take seconds, and their memory is not free yet.
  EntryList stopping_;
  Mutex list_mu_;
  SessionAffinity affinity_ GUARDED_BY(list_mu_);  // the replica of each conversation
  uint64_t next_socket_id_ = 0;                    // on strand_ only
  CrashLoopBreaker breaker_;                       // on strand_ only
  // Found once, from the constructor on (so the first load rarely waits for
  // the engine probe); the RPC workers' part again when a load needs them.
  DeviceBook devices_;
  PoolEvents* const events_;  // may be null
  // When an engine was last evicted for memory: while that is recent,
  // models take turns in memory and the session tier writes conversations
  // behind (TurnEnded), so that the next eviction has nothing to replay.
  std::atomic<std::chrono::steady_clock::rep> last_eviction_ns_{0};
  bool told_over_ = false;  // MakeRoomForCache said RAM is over; strand only
  std::atomic<CapacityListener*> capacity_listener_{nullptr};
  const LoadPlanner planner_;  // thread-safe itself
  PoolLedger ledger_;          // the memory ledger over entries_ and stopping_
  OptionsReload reload_;       // reloads for other options, draft verdicts
};

}  // namespace zest::scheduler
