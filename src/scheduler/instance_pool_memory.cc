// InstancePool: memory admission and eviction before a load (see Acquire in
// instance_pool.h). Runs on the pool's strand.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <limits>
#include <map>
#include <thread>

#include "core/mutex.h"
#include "engines/process_memory.h"
#include "placement/eviction.h"
#include "placement/replica.h"
#include "scheduler/instance_pool_entry.h"
#include "scheduler/session_tier.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

// How long after an eviction for memory the session tier writes each
// conversation behind as its turn ends: while models take turns in memory.
constexpr std::chrono::minutes kWriteBehindWindow{10};

// The models of `entries` (pool entries), each once: "'a', 'b'". A template
// so it need not name the pool's private Entry type.
template <typename EntryList>
std::string JoinNames(const EntryList& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    if (std::find(names.begin(), names.end(), entry->model) == names.end())
      names.push_back(entry->model);
  }
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

awaitable<Result<placement::EnginePlan>> InstancePool::AdmitMemory(const models::ModelEntry& model,
                                                                   Entry& entry) {
  co_await devices_.Ensure();
  MemoryWait wait;
  wait.until = std::chrono::steady_clock::now() + options_.memory_wait;
  // A model its options put on a worker by name ("rpc:HOST:PORT") is
  // planned with the workers from the start: without them its device is
  // one the engine does not see.
  wait.on_worker = entry.settings.device.starts_with("rpc:") && devices_.has_remote();
  if (wait.on_worker && !entry.replica) {
    co_await ledger_.RefreshWorkers();
    wait.workers_checked = true;
  }
  const EntryList none;
  Result<placement::EnginePlan> first = ledger_.PlanAgainst(model, entry, none, wait.on_worker);
  Result<placement::EnginePlan> plan = co_await WaitForMemory(model, entry, std::move(first), wait);
  // The drained instance was emptied for this load. If the load found room
  // without it (another instance went idle first) or failed, it serves
  // again: left draining, its requests would wait for an eviction that no
  // one is going to do.
  const std::shared_ptr<Entry>& drained = wait.drained;
  if (drained && (!plan.ok() ||
                  std::find(wait.evict.begin(), wait.evict.end(), drained) == wait.evict.end())) {
    spdlog::info("'{}' serves again: the load of '{}' {}", drained->model, model.name,
                 plan.ok() ? "found room without it" : "failed");
    StopDraining(drained);
  }
  if (!plan.ok()) co_return plan;
  {
    MutexLock lock(list_mu_);
    entry.plan = *plan;  // reserved before the evictions below yield the strand
  }
  for (const auto& victim : wait.evict) {
    co_await EvictIfIdle(victim, "to make room for '" + model.name + "'");
  }
  co_return plan;
}

awaitable<Result<placement::EnginePlan>> InstancePool::WaitForMemory(
    const models::ModelEntry& model, Entry& entry, Result<placement::EnginePlan> plan,
    MemoryWait& wait) {
  bool told = false;
  const EntryList none;
  while (!plan.ok() && plan.status().code() == ErrorCode::kInsufficientMemory) {
    // This machine first: the fewest idle instances, in eviction order,
    // that make it fit. Then, only for what this machine cannot hold, the
    // RPC workers (PoolLedger::PlanMakingRoom).
    EntryList busy;
    plan = co_await ledger_.PlanMakingRoom(model, entry, wait.on_worker, wait.workers_checked,
                                           wait.evict, busy);
    if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    // Instances in use hold the memory: wait for one to go idle (then it
    // can be evicted) rather than fail a request that fits once they do;
    // 507 only when even an empty machine could not hold it, or at the end
    // of placement.memory_wait_s. A replica never waits: it is only worth
    // having now.
    EntryList everyone = wait.evict;  // every idle instance, since none was enough
    everyone.insert(everyone.end(), busy.begin(), busy.end());
    bool fits_when_idle = !entry.replica && !busy.empty() &&
                          ledger_.PlanAgainst(model, entry, everyone, wait.workers_checked).ok();
    if (!fits_when_idle || std::chrono::steady_clock::now() >= wait.until) {
      std::string message = plan.status().message();
      if (!busy.empty()) message += "; in use and not evicted: " + JoinNames(busy);
      StopDraining(wait.drained);
      wait.drained = nullptr;  // serves again already
      co_return InsufficientMemory(message);
    }
    if (!told) {
      spdlog::info("'{}' waits for memory held by {} (in use)", model.name, JoinNames(busy));
      told = true;
    }
    // For an urgent request, stop feeding one of them, so it goes idle and
    // can be evicted even while its own queue is full (a swap: its requests
    // reload it later). Others wait their turn without forcing swaps.
    if (!wait.drained && entry.may_drain) wait.drained = StartDraining(busy, model.name);
    asio::steady_timer pause(strand_, std::chrono::milliseconds(100));
    co_await pause.async_wait(asio::as_tuple(use_awaitable));
    plan = ledger_.PlanAgainst(model, entry, none, wait.on_worker);
  }
  co_return plan;
}

std::optional<placement::ModelFit> InstancePool::Fit(const models::ModelEntry& model) {
  return ledger_.Fit(model);
}

std::optional<placement::ModelFit> InstancePool::FitOfSize(uint64_t file_bytes) {
  return ledger_.FitOfSize(file_bytes);
}

std::shared_ptr<InstancePool::Entry> InstancePool::StartDraining(const EntryList& busy,
                                                                 const std::string& for_model) {
  std::shared_ptr<Entry> drained;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : busy) {
      if (entry->state != Entry::State::kReady || entry->draining) continue;
      entry->draining = true;
      drained = entry;
      break;
    }
  }
  if (!drained) return nullptr;
  spdlog::info("draining '{}' to make room for '{}' (its instance on {})", drained->model,
               for_model, drained->instance->device());
  PublishCapacity(drained->model);
  return drained;
}

void InstancePool::StopDraining(const std::shared_ptr<Entry>& entry) {
  if (!entry) return;
  {
    MutexLock lock(list_mu_);
    entry->draining = false;
  }
  PublishCapacity(entry->model);
}

awaitable<bool> InstancePool::EvictIfIdle(std::shared_ptr<Entry> entry, std::string reason) {
  std::shared_ptr<Instance> instance;
  {
    MutexLock lock(list_mu_);
    bool listed = false;
    for (auto [it, end] = entries_.equal_range(entry->model); it != end; ++it) {
      listed = listed || it->second == entry;
    }
    if (!listed || entry->state != Entry::State::kReady || entry->instance->in_flight.load() > 0) {
      co_return false;
    }
    instance = entry->instance;
    TakeToStop(entry);
  }
  PublishCapacity(entry->model);
  last_eviction_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
  spdlog::info("evicting idle '{}' (pid {}) {} (on {})", entry->model, instance->pid(), reason,
               instance->device());
  // Its conversations come back if it is loaded again.
  co_await StopTaken(entry, !entry->replica, /*hurried=*/true);  // a load waits for it
  if (events_) events_->EngineStopped(entry->model, "memory");
  co_return true;
}

void LearnFromMeasured(const LoadPlanner& planner, PoolEvents* events, asio::thread_pool& blocking,
                       const models::ModelEntry& model, const Instance& instance,
                       const placement::EnginePlan& plan) {
  const uint64_t measured = engines::ProcessTreeRssBytes(instance.pid());
  const uint64_t predicted = plan.BytesOn(placement::kCpuDevice);
  const double error =
      measured > 0 ? (static_cast<double>(predicted) - measured) / measured * 100 : 0;
  spdlog::info("'{}' memory: predicted {} on the CPU (total {}), measured RSS {} ({:+.1f}%)",
               instance.model(), placement::FormatBytes(predicted),
               placement::FormatBytes(plan.TotalBytes()), placement::FormatBytes(measured), error);
  // Only the CPU side is measured: device memory per process is not known here.
  if (measured == 0) return;  // gone already: nothing to learn
  if (events) {
    events->EngineMemory(instance.model(), instance.device(), placement::kCpuDevice, predicted,
                         measured);
  }
  // The write (a small file, fsync'd) runs on the blocking pool, off the
  // strand; the destructor joins that pool before the planner goes.
  asio::post(blocking, [&planner, model, plan, measured] {
    auto learned = planner.Learn(model, plan, measured);
    if (!learned.ok()) {
      spdlog::warn("'{}': the learned memory correction is not saved: {}", model.name,
                   learned.status().message());
      return;
    }
    spdlog::info(
        "'{}' memory correction ({}): measured/predicted {:.3f} this load, learned {:.3f} from "
        "{} load(s); the next such placement scales the CPU prediction by {:.3f}",
        model.name, placement::CorrectionScopeName(plan.correction_scope),
        static_cast<double>(measured) / std::max<uint64_t>(LedgerCpuBytes(plan), 1), learned->ratio,
        learned->loads, learned->Factor());
  });
}

void InstancePool::TurnEnded(const std::shared_ptr<Instance>& instance, const std::string& session,
                             uint64_t tokens) {
  if (instance->prompt_cache.ceiling > 0) {
    instance->conversations.Record(session, tokens);
    const uint64_t reserved = instance->PromptCacheReserved();
    bool grew = false;
    {
      MutexLock lock(list_mu_);
      for (auto [it, end] = entries_.equal_range(instance->model()); it != end; ++it) {
        Entry& entry = *it->second;
        if (entry.instance != instance || entry.plan.memory.empty()) continue;
        uint64_t& held = entry.plan.memory[0].memory.prompt_cache;  // CPU first
        grew = reserved > held;
        held = reserved;
      }
    }
    if (grew) asio::co_spawn(strand_, MakeRoomForCache(instance->model()), asio::detached);
  }
  SessionTier* tier = options_.session_tier;
  const std::chrono::steady_clock::rep evicted = last_eviction_ns_.load();
  const auto since = std::chrono::steady_clock::duration(
      std::chrono::steady_clock::now().time_since_epoch().count() - evicted);
  if (tier != nullptr && tier->enabled() && !session.empty() && evicted != 0 &&
      since < kWriteBehindWindow) {
    asio::co_spawn(strand_.get_inner_executor(), tier->WriteBehind(instance, session, tokens),
                   asio::detached);
  }
}

awaitable<void> InstancePool::MakeRoomForCache(std::string grown) {
  const std::optional<std::vector<placement::PlacementDevice>> devices = devices_.Snapshot();
  if (!devices) co_return;
  while (true) {
    const uint64_t over = ledger_.RamOvercommit(*devices);
    if (over == 0) {
      told_over_ = false;
      co_return;
    }
    EntryList busy;
    EntryList idle = ledger_.IdleInEvictionOrder(grown, busy);
    bool evicted = false;
    if (!idle.empty()) {
      std::string reason = "for the prompt cache of '" + grown + "'";  // named (GCC 12)
      evicted = co_await EvictIfIdle(idle.front(), std::move(reason));
    }
    if (!evicted) {
      if (!told_over_) {
        spdlog::warn(
            "the engines hold {} more than the RAM zest may use ('{}''s prompt cache grew) "
            "and none is idle to evict",
            placement::FormatBytes(over), grown);
      }
      told_over_ = true;
      co_return;
    }
  }
}

}  // namespace zest::scheduler
