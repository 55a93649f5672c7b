#include "scheduler/instance_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <thread>
#include <utility>

#include "core/private_dirs.h"
#include "http/upstream_client.h"
#include "models/model_file_safety.h"
#include "models/preset_load_options.h"
#include "models/store_naming.h"
#include "placement/replica.h"
#include "scheduler/instance_pool_entry.h"
#include "scheduler/load_retry.h"
#include "scheduler/session_tier.h"
#include "scheduler/slot_cache.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using asio::awaitable;
using asio::use_awaitable;

// How often a dying engine is looked at (ForgetIfDead).
constexpr auto kDeathPollInterval = std::chrono::milliseconds(20);
constexpr auto kDeathGracePeriod = std::chrono::milliseconds(1000);
// An engine that crashes on its own sooner than this after it was ready
// counts for the crash-loop breaker as one that cannot start.
constexpr std::chrono::seconds kCrashedAtOnce{10};

// llama-server aborts when an RPC worker goes away (at start-up or
// mid-request). Not the model's fault: it is not held off, and the next
// load checks the workers again, planning without one that is gone.
void NoteWorkersMayBeGone(const std::string& model) {
  spdlog::warn("'{}' used RPC workers; if one went away, the next load plans without it", model);
}

// The options a load without explicit ones gets: the model's configured
// ones; for a preset with load options of its own (an Ollama `create` with
// PARAMETER draft ...), its base's configured ones with those over them.
config::ModelSettings ConfiguredFor(const LoadPlanner& planner, const models::ModelEntry& model) {
  if (!model.preset || !models::HasLoadOptions(*model.preset))
    return planner.Configured(model.name);
  Result<config::ModelSettings> own =
      models::WithLoadOptions(model.preset->parameters, planner.Configured(model.preset->from));
  if (own.ok()) return *own;
  // Checked when it was made: only a hand-edited file gets here.
  spdlog::warn("'{}': its preset's load options are ignored: {}", model.name,
               own.status().message());
  return planner.Configured(model.preset->from);
}

// The engine's socket and the directory it alone has (EngineStarter).
void RemoveEngineDir(const fs::path& socket) {
  std::error_code ec;
  fs::remove(socket, ec);
  if (socket.parent_path().filename().string().starts_with("engine-")) {
    fs::remove_all(socket.parent_path(), ec);
  }
}

}  // namespace

InstancePool::InstancePool(asio::io_context& io, PoolOptions options, PoolEvents* events)
    : options_(std::move(options)),
      slot_dirs_(options_.slot_dir, options_.handoff_dir),
      starter_(StarterOptions{.engines = options_.engines,
                              .launcher = options_.launcher,
                              .log_dir = options_.log_dir,
                              .pid_dir = options_.pid_dir,
                              .ready_timeout = options_.ready_timeout,
                              .model_roots = options_.model_roots,
                              .hidden_dirs = options_.hidden_dirs,
                              .keys_required = options_.keys_required}),
      strand_(asio::make_strand(io)),
      breaker_(options_.restart_backoff, options_.restart_backoff_max, options_.crash_loop_window),
      devices_(strand_, blocking_,
               DeviceSources{options_.discover_devices, options_.remote_devices}),
      events_(events),
      planner_(
          PlannerOptions{.ctx_size = options_.ctx_size,
                         .parallel = options_.parallel,
                         .threads = options_.threads,
                         .cpu_cores = options_.cpu_cores,
                         .npu = options_.npu,
                         .model_settings = options_.model_settings,
                         .memory_corrections_file = options_.memory_corrections_file,
                         .find_model = options_.find_model,
                         .private_prompt_caches =
                             [keys = options_.keys_required, share = options_.share_prompt_cache] {
                               return !share && keys && keys();
                             }}),
      ledger_(list_mu_, entries_, stopping_, devices_, planner_),
      reload_(strand_, *this, ledger_) {
  asio::co_spawn(strand_, devices_.Ensure(), asio::detached);
}

InstancePool::~InstancePool() {
  StopAll();
  blocking_.join();
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::Acquire(models::ModelEntry model,
                                                                   bool urgent) {
  // Fast path, the common case: the model is loaded and its engine alive.
  // No hop to the strand (a thread switch per request), just the list lock.
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(model.name)) {
      if (entry->state == Entry::State::kReady && !entry->draining && entry->instance->Alive()) {
        co_return entry->instance;
      }
    }
  }
  // Everything else runs on the pool's strand and resumes the caller on its
  // own executor.
  std::optional<config::ModelSettings> configured;  // named: no temporaries in co_await
  co_return co_await asio::co_spawn(
      strand_, AcquireOnStrand(std::move(model), std::move(configured), urgent), use_awaitable);
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::ExplicitLoad(
    models::ModelEntry model, std::optional<config::ModelSettings> settings) {
  co_return co_await asio::co_spawn(
      strand_,
      AcquireOnStrand(std::move(model), std::move(settings), /*urgent=*/true,
                      /*explicit_load=*/true),
      use_awaitable);
}

int InstancePool::EngineParallel(const std::string& model) {
  std::optional<int> configured;
  {
    MutexLock lock(list_mu_);
    if (auto it = entries_.find(model); it != entries_.end()) {
      if (it->second->state == Entry::State::kReady) return it->second->plan.parallel;
      configured = it->second->settings.parallel;
    } else {
      configured = planner_.Configured(model).parallel;
    }
  }
  return configured.value_or(options_.parallel);
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::AcquireOnStrand(
    models::ModelEntry model, std::optional<config::ModelSettings> settings, bool urgent,
    bool explicit_load) {
  if (explicit_load) breaker_.Forget(model.name);
  LoadRetry retry{.started = std::chrono::steady_clock::now()};
  std::optional<config::ModelSettings> reload_with;
  while (true) {
    EntryList entries;
    bool stopping = false;
    {
      MutexLock lock(list_mu_);
      entries = EntriesOf(model.name);
      stopping = std::any_of(stopping_.begin(), stopping_.end(),
                             [&](const auto& e) { return e->model == model.name; });
    }
    Result<bool> changed = co_await reload_.Check(model.name, entries, settings, reload_with);
    if (!changed.ok()) co_return changed.status();
    if (*changed) continue;
    EntryScan scan = ScanEntries(entries);
    // Its engine on the way out still writes the conversations a new one
    // would restore: a new load waits until it is gone.
    if (!scan.ready && !scan.loading && stopping) scan.draining = true;
    if (scan.ready) co_return scan.ready;
    if (scan.dead) {
      spdlog::warn("engine for '{}' (pid {}) has exited; starting a new one", model.name,
                   scan.dead->instance->pid());
      co_await ReportBroken(scan.dead->instance);
      continue;
    }
    if (scan.draining) {
      co_await WaitOutDraining(strand_, model.name, retry);
      continue;
    }
    std::shared_ptr<Entry> loading = std::move(scan.loading);
    if (!loading) {
      config::ModelSettings chosen = settings      ? *settings
                                     : reload_with ? *reload_with
                                                   : ConfiguredFor(planner_, model);
      Result<std::shared_ptr<Entry>> added = AddEntry(model, std::move(chosen), urgent, false);
      if (!added.ok()) co_return added.status();
      loading = *added;
      // Its outcome is read from the entry below, as for a load joined.
      std::shared_ptr<Entry> entry = loading;  // named: no temporaries in co_await
      (void)co_await Load(model, std::move(entry));
    } else {
      if (urgent) loading->may_drain = true;  // read by that load's memory wait
      co_await loading->done.async_wait(asio::as_tuple(use_awaitable));
    }
    if (loading->state == Entry::State::kReady) co_return loading->instance;
    if (!LoadAgainAfter(model.name, *loading, retry)) co_return loading->error;
  }
}

Result<std::shared_ptr<InstancePool::Entry>> InstancePool::AddEntry(const models::ModelEntry& model,
                                                                    config::ModelSettings settings,
                                                                    bool urgent, bool replica) {
  // An engine that keeps failing on its own is not restarted for a while.
  ZEST_RETURN_IF_ERROR(breaker_.Check(model.name, std::chrono::steady_clock::now()));
  auto entry = std::make_shared<Entry>(strand_, model.name, replica);
  entry->may_drain = urgent && !replica;
  entry->settings = std::move(settings);
  MutexLock lock(list_mu_);
  entries_.emplace(model.name, entry);
  return entry;
}

void InstancePool::FinishLoad(const std::shared_ptr<Entry>& entry, Status error) {
  MutexLock lock(list_mu_);
  entry->state = error.ok() ? Entry::State::kReady : Entry::State::kFailed;
  entry->error = std::move(error);
  if (!entry->error.ok()) Erase(entry);
  entry->done.cancel();
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::Load(const models::ModelEntry& model,
                                                                std::shared_ptr<Entry> entry) {
  const bool replica = entry->replica;
  fs::path socket =
      options_.run_dir / ("engine-" + std::to_string(++next_socket_id_)) / "engine.sock";
  auto start = std::chrono::steady_clock::now();
  Result<placement::EnginePlan> plan = co_await AdmitMemory(model, *entry);
  if (!plan.ok()) {
    if (!replica) spdlog::error("cannot load '{}': {}", model.name, plan.status().message());
    FinishLoad(entry, plan.status());
    co_return plan.status();
  }
  ledger_.AssignCpuThreads(model, *entry, *plan);
  spdlog::info("placing '{}'{}: {}", model.name, replica ? " (replica)" : "", plan->explanation);
  Result<std::shared_ptr<Instance>> started = StartEngine(model, *entry, *plan, socket);
  if (!started.ok()) {
    FinishLoad(entry, started.status());
    co_return started.status();
  }
  std::shared_ptr<Instance> instance = *started;
  Status ready = co_await starter_.WaitReady(strand_, *instance);
  if (!ready.ok()) {
    co_await FailLoad(model, entry, instance, *plan, ready);
    co_return ready;
  }
  // Before any request reaches it: conversations saved when it last unloaded.
  if (fs::path dir = slot_dirs_.Saved(model.name);
      !dir.empty() && !replica && !instance->slot_dir.empty()) {
    auto restored = co_await RestoreSlots(socket, dir);
    if (restored.ok() && *restored > 0)
      spdlog::info("restored {} slot(s) of '{}'", *restored, model.name);
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  entry->load_s = secs;
  FinishLoad(entry, Status::Ok());
  PublishCapacity(model.name);
  spdlog::info("'{}' ready in {:.2f} s (on {})", model.name, secs, instance->device());
  // The ledger models some engines' memory, not every one's.
  if (instance->engine->learns_memory()) {
    LearnFromMeasured(planner_, events_, blocking_, model, *instance, *plan);
  }
  if (events_) events_->EngineReady(model.name, secs);
  co_return instance;
}

Result<std::shared_ptr<Instance>> InstancePool::StartEngine(const models::ModelEntry& model,
                                                            Entry& entry,
                                                            const placement::EnginePlan& plan,
                                                            const fs::path& socket) {
  const bool replica = entry.replica;
  const StartRequest start_request{
      .socket = socket, .slot_dir = slot_dirs_.ForEngine(model.name, replica), .replica = replica};
  Result<std::shared_ptr<Instance>> started = starter_.Start(model, plan, start_request);
  if (!started.ok()) {
    // Nothing was started (no engine, an unsafe model file, a bad flag):
    // not an engine failing, so the breaker does not count it.
    if (events_) events_->EngineFailedToStart(model.name);
    return started.status();
  }
  std::shared_ptr<Instance> instance = *started;
  if (plan.speculative.kind == placement::SpeculativeKind::kDraft) {
    instance->draft_acceptance = std::make_unique<DraftAcceptance>(plan.speculative.draft_model,
                                                                   plan.speculative.chosen_by_auto);
  }
  {
    MutexLock lock(list_mu_);
    entry.instance = instance;
  }
  spdlog::info("loading '{}' (pid {}, socket {}, on {})", model.name, instance->pid(),
               socket.string(), instance->device());
  if (model.info.synthetic && !replica) {
    spdlog::warn(
        "'{}' is a SYNTHETIC model with random weights: it produces gibberish. "
        "Put a real GGUF model in the models directory.",
        model.name);
  }
  return instance;
}

awaitable<void> InstancePool::FailLoad(const models::ModelEntry& model,
                                       std::shared_ptr<Entry> entry,
                                       std::shared_ptr<Instance> instance,
                                       const placement::EnginePlan& plan, Status why) {
  spdlog::error("'{}' failed to load: {}", model.name, why.message());
  std::optional<int> exit = instance->process().ExitStatus();
  if (exit && engines::Process::KilledFromOutside(*exit)) {
    entry->killed_from_outside = true;  // not its fault: loaded again, not held off
  } else if (!plan.rpc_workers.empty()) {
    NoteWorkersMayBeGone(model.name);  // gone since it was checked?
  } else {
    NoteOwnFailure(breaker_, model.name, why.message());
  }
  co_await TerminateOn(blocking_, instance);
  if (events_) events_->EngineFailedToStart(model.name);
  FinishLoad(entry, std::move(why));
}

// The public coroutines hop onto the strand (or the blocking pool) by
// co_spawning a member coroutine, never a capturing lambda: GCC 12
// miscompiles lambda coroutines whose captures outlive a suspension. Those
// that also run on the strand when called there (Stop, KillHung, AddReplica,
// RemoveReplica) co_spawn themselves when called from elsewhere.
awaitable<void> InstancePool::ReportBroken(std::shared_ptr<Instance> instance) {
  co_await asio::co_spawn(strand_, ForgetIfDead(std::move(instance)), use_awaitable);
}

awaitable<void> InstancePool::ForgetExited() {
  std::vector<std::shared_ptr<Instance>> exited;
  {
    MutexLock lock(list_mu_);
    for (const auto& [name, entry] : entries_) {
      if (entry->state == Entry::State::kReady && entry->instance && !entry->instance->Alive()) {
        exited.push_back(entry->instance);
      }
    }
  }
  for (std::shared_ptr<Instance>& instance : exited) co_await ReportBroken(std::move(instance));
}

awaitable<void> InstancePool::KillHung(std::string model, pid_t pid) {
  if (!strand_.running_in_this_thread()) {
    co_await asio::co_spawn(strand_, KillHung(std::move(model), pid), use_awaitable);
    co_return;
  }
  std::shared_ptr<Instance> instance;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(model)) {
      if (!entry->instance || entry->instance->pid() != pid) continue;
      instance = entry->instance;
      Erase(entry);
      break;
    }
  }
  if (!instance) co_return;
  PublishCapacity(model);
  // Not counted by the breaker: the watchdog waited its whole period
  // before it called this a hang, which spaces out restarts enough.
  if (events_) events_->EngineCrashed(model);
  co_await TerminateOn(blocking_, instance);  // SIGKILL reaches a stopped process too
}

void NoteOwnFailure(CrashLoopBreaker& breaker, const std::string& model,
                    const std::string& reason) {
  const auto hold = breaker.RecordFailure(model, reason, std::chrono::steady_clock::now());
  if (hold.count() > 0) {
    spdlog::error("'{}' failed on its own: not restarting it for {:.1f} s", model,
                  std::chrono::duration<double>(hold).count());
  }
}

awaitable<void> InstancePool::ForgetIfDead(std::shared_ptr<Instance> instance) {
  // A request failed on this instance. When llama-server itself was killed,
  // its bwrap parent (the process we hold) exits a few milliseconds later:
  // give it a moment before deciding, so the next request does not get the
  // dying instance again. A live process means a transient failure.
  asio::steady_timer timer(strand_);
  for (auto waited = std::chrono::milliseconds(0); instance->Alive() && waited < kDeathGracePeriod;
       waited += kDeathPollInterval) {
    timer.expires_after(kDeathPollInterval);
    co_await timer.async_wait(asio::as_tuple(use_awaitable));
  }
  if (instance->Alive()) co_return;
  bool forgotten = false;
  double load_s = 0;
  bool used_workers = false;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(instance->model())) {
      if (entry->instance != instance) continue;
      Erase(entry);
      forgotten = true;
      load_s = entry->load_s;
      used_workers = !entry->plan.rpc_workers.empty();
      break;
    }
  }
  if (forgotten) PublishCapacity(instance->model());
  // Counted once per instance: several requests may report the same death.
  if (forgotten && events_) events_->EngineCrashed(instance->model());
  const int exit = instance->process().ExitStatus().value_or(0);
  // An engine that crashes at once on every load is doomed; one killed from
  // outside (the OOM killer, an operator), or that served a while before it
  // crashed, is restarted at once. So is one that used RPC workers.
  const auto ready_for = std::chrono::steady_clock::now() - instance->started_at() -
                         std::chrono::duration<double>(load_s);
  if (used_workers) NoteWorkersMayBeGone(instance->model());
  if (forgotten && !used_workers && !instance->KilledFromOutside() && ready_for < kCrashedAtOnce) {
    NoteOwnFailure(
        breaker_, instance->model(),
        "crashed " +
            std::to_string(static_cast<int>(std::chrono::duration<double>(ready_for).count())) +
            " s after it was ready: " + engines::Process::DescribeExit(exit));
  }
  spdlog::warn("engine for '{}' (pid {}) {}; last output:\n{}", instance->model(), instance->pid(),
               engines::Process::DescribeExit(exit), FailureReason(instance->process()));
  co_await TerminateOn(blocking_, instance);
}

awaitable<Status> InstancePool::Stop(std::string model, StopReason reason) {
  if (!strand_.running_in_this_thread()) {
    co_return co_await asio::co_spawn(strand_, Stop(std::move(model), reason), use_awaitable);
  }
  EntryList stopping;
  {
    MutexLock lock(list_mu_);
    for (const auto& entry : EntriesOf(model)) {
      if (!entry->instance) continue;
      stopping.push_back(entry);
      if (entry->state == Entry::State::kReady) TakeToStop(entry);
    }
  }
  if (stopping.empty()) co_return NotFound("model '" + model + "' is not loaded");
  PublishCapacity(model);
  for (const auto& entry : stopping) {
    // No new request can reach it now; an idle one keeps its conversations.
    // A load in progress notices the exit and fails its waiters.
    co_await StopTaken(entry, reason.save_slots && !entry->replica, /*hurried=*/false);
    spdlog::info("stopped '{}' (pid {}, on {})", model, entry->instance->pid(),
                 entry->instance->device());
    if (events_) events_->EngineStopped(model, reason.label);
  }
  co_return Status::Ok();
}

awaitable<void> InstancePool::KeepConversations(std::shared_ptr<Instance> instance, bool hurried) {
  co_await SaveIdleSlots(instance, slot_dirs_.Saved(instance->model()));
  if (options_.session_tier) {
    co_await options_.session_tier->SaveSessions(std::move(instance), hurried);
  }
}

awaitable<void> SaveIdleSlots(std::shared_ptr<Instance> instance, fs::path dir) {
  if (dir.empty() || instance->slot_dir.empty() || instance->in_flight > 0 || !instance->Alive()) {
    co_return;  // no slots to save, or not now
  }
  auto saved = co_await SaveSlots(instance->socket(), dir);
  if (saved.ok() && *saved > 0) spdlog::info("saved {} slot(s) of '{}'", *saved, instance->model());
  if (!saved.ok()) {
    spdlog::warn("cannot save the slots of '{}': {}", instance->model(), saved.status().message());
  }
}

namespace {

// A free coroutine, not a capturing lambda (GCC 12 miscompiles those).
awaitable<void> TerminateBlocking(std::shared_ptr<Instance> instance) {
  instance->process().Terminate();
  RemoveEngineDir(instance->socket());
  co_return;
}

}  // namespace

awaitable<void> TerminateOn(asio::thread_pool& blocking, std::shared_ptr<Instance> instance) {
  co_await asio::co_spawn(blocking, TerminateBlocking(std::move(instance)), use_awaitable);
}

std::vector<InstanceStatus> InstancePool::List() {
  std::vector<InstanceStatus> out;
  MutexLock lock(list_mu_);
  auto now = std::chrono::steady_clock::now();
  for (const auto& [name, entry] : entries_) {
    if (!entry->instance) continue;
    const Instance& in = *entry->instance;
    InstanceStatus s;
    s.model = name;
    s.pid = in.pid();
    s.socket = in.socket().string();
    s.health_path = in.ready_path();
    s.engine = in.engine ? in.engine->name() : "";
    s.recipe = in.engine ? in.engine->recipe() : "";
    s.state = entry->state != Entry::State::kReady ? "loading"
              : entry->draining                    ? "draining"
                                                   : "ready";
    s.uptime_s = std::chrono::duration<double>(now - in.started_at()).count();
    s.in_flight = in.in_flight.load();
    s.plan = entry->plan;
    s.device = in.device();
    s.slots = in.slots();
    s.replica = entry->replica;
    s.idle_s = std::chrono::duration<double>(now - in.LastUsed()).count();
    s.per_token_ms = in.PerTokenMs();
    s.settings = entry->settings;
    out.push_back(std::move(s));
  }
  return out;
}

std::shared_ptr<Instance> InstancePool::Find(const std::string& model) {
  MutexLock lock(list_mu_);
  for (const auto& entry : EntriesOf(model)) {
    if (entry->instance) return entry->instance;
  }
  return nullptr;
}

void InstancePool::StopAll() {
  std::vector<std::shared_ptr<Instance>> instances;
  {
    MutexLock lock(list_mu_);
    for (auto& [name, entry] : entries_) {
      if (entry->instance) instances.push_back(entry->instance);
    }
    entries_.clear();
  }
  // In parallel: each may take the whole grace period.
  std::vector<std::jthread> stoppers;
  for (auto& instance : instances) {
    stoppers.emplace_back([instance] {
      instance->process().Terminate();
      RemoveEngineDir(instance->socket());
    });
  }
}

}  // namespace zest::scheduler
