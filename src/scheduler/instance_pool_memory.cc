// InstancePool: memory admission and eviction before a load (see Acquire in
// instance_pool.h). Runs on the pool's strand.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <limits>
#include <map>
#include <thread>

#include "core/mutex.h"
#include "engines/process_memory.h"
#include "models/catalog.h"
#include "placement/cpu_model_plan.h"
#include "placement/cpu_threads.h"
#include "placement/eviction.h"
#include "placement/policy.h"
#include "placement/replica.h"
#include "scheduler/instance_pool_entry.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

// Without a device list (tests that construct a bare pool): one CPU with no
// memory limit, so only the options shape the plan.
std::vector<placement::PlacementDevice> UnlimitedCpu() {
  placement::PlacementDevice cpu;
  cpu.name = placement::kCpuDevice;
  cpu.description = "CPU (no memory limit)";
  cpu.total_bytes = cpu.free_bytes = std::numeric_limits<uint64_t>::max() / 4;
  return {cpu};
}

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

// The file a model's memory correction was learned from (memory_correction.h).
std::string FileIdentity(const models::ModelEntry& model) {
  return placement::ModelFileIdentity(model.path, model.info.file_size, model.created);
}

}  // namespace

awaitable<void> InstancePool::EnsureDevices() {
  if (devices_) co_return;
  if (discovering_) {  // started by the constructor (or another load): wait for it
    co_await devices_found_.async_wait(asio::as_tuple(use_awaitable));
    co_return;
  }
  discovering_ = true;
  std::vector<placement::PlacementDevice> found;
  if (options_.discover_devices) {
    found = co_await asio::co_spawn(blocking_, DiscoverDevicesBlocking(), use_awaitable);
  } else {
    found = UnlimitedCpu();
  }
  {
    MutexLock lock(list_mu_);
    devices_ = std::move(found);
  }
  devices_found_.cancel();
  for (const auto& d : *devices_) {
    spdlog::info("placement device {}: {}, {} free of {}", d.name, d.description,
                 placement::FormatBytes(d.free_bytes), placement::FormatBytes(d.total_bytes));
  }
}

awaitable<std::vector<placement::PlacementDevice>> InstancePool::DiscoverDevicesBlocking() {
  co_return options_.discover_devices();
}

Result<placement::EnginePlan> InstancePool::PlanAgainst(const models::ModelEntry& model,
                                                        const Entry& self,
                                                        const EntryList& evicted) {
  std::vector<const placement::EnginePlan*> loaded;
  std::vector<std::string> used;  // devices the model's other instances compute on
  // The options this load was started with (an explicit load's may differ).
  placement::PlacementRequest request = RequestFor(model, self.settings);
  MutexLock lock(list_mu_);  // the plans of loading entries may still change
  for (const auto& [name, entry] : entries_) {
    if (entry.get() == &self || std::find(evicted.begin(), evicted.end(), entry) != evicted.end()) {
      continue;
    }
    loaded.push_back(&entry->plan);
    if (entry->plan.OnNpu()) request.npu.held_by = name;  // FastFlowLM: one model at a time
    // A loading entry without a plan yet holds nothing and uses no device.
    if (name == model.name && !entry->plan.memory.empty()) {
      used.push_back(placement::PrimaryDevice(entry->plan));
    }
  }
  const std::vector<placement::PlacementDevice> free = placement::FreeAfter(*devices_, loaded);
  if (model.info.speech) return placement::PlanSpeech(model.info, free);
  if (model.info.image) return placement::PlanImages(model.info, free);
  if (self.replica) return placement::PlanReplica(model.info, free, request, used);
  return placement::PlanPlacement(model.info, free, request);
}

void InstancePool::AssignCpuThreads(const models::ModelEntry& model, Entry& self,
                                    placement::EnginePlan& plan) {
  MutexLock lock(list_mu_);
  if (options_.threads > 0) {
    plan.cpu_threads = options_.threads;
  } else if (placement::ComputesOnCpu(plan, model.info.block_count)) {
    std::vector<int> running;  // CPU engines resident now, loading ones included
    for (const auto& [name, entry] : entries_) {
      if (entry.get() != &self && entry->plan.cpu_threads > 0)
        running.push_back(entry->plan.cpu_threads);
    }
    const int cores = options_.cpu_cores > 0
                          ? options_.cpu_cores
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    plan.cpu_threads = placement::CpuThreadShare(cores, running);
    plan.explanation +=
        " " + std::to_string(plan.cpu_threads) + " of " + std::to_string(cores) + " CPU cores (" +
        (running.empty() ? std::string("no other CPU engine")
                         : std::to_string(running.size()) + " other CPU engine(s)") +
        ").";
  }
  self.plan.cpu_threads = plan.cpu_threads;
  self.plan.explanation = plan.explanation;
}

placement::PlacementRequest InstancePool::RequestFor(const models::ModelEntry& model,
                                                     config::ModelSettings options) const {
  placement::PlacementRequest request;
  request.options = std::move(options);
  request.model_name = model.name;
  request.default_ctx_per_slot = static_cast<uint64_t>(std::max(options_.ctx_size, 0));
  request.default_parallel = options_.parallel;
  // A pooling embedding engine (llama.cpp build 11669) asserts at load unless
  // its sequence count divides the micro-batch (512): a power of two is safe.
  if (model.info.embedding) {
    request.default_parallel =
        static_cast<int>(std::bit_floor(static_cast<unsigned>(std::max(options_.parallel, 1))));
  }
  const std::string file = FileIdentity(model);
  request.learned.cpu_only =
      corrections_.Get(model.name, file, placement::CorrectionScope::kCpuOnly);
  request.learned.with_gpus =
      corrections_.Get(model.name, file, placement::CorrectionScope::kWithGpus);
  request.npu = options_.npu;
  request.npu.checkpoint = request.options.flm;
  if (request.npu.checkpoint.empty() && !model.catalog.empty()) {
    if (const models::CatalogEntry* entry = models::Catalog::Builtin().Find(model.catalog)) {
      request.npu.checkpoint = entry->flm;
    }
  }
  std::error_code ec;
  if (!model.mmproj.empty()) request.mmproj_bytes = std::filesystem::file_size(model.mmproj, ec);
  if (ec) request.mmproj_bytes = 0;
  return request;
}

std::optional<placement::ModelFit> InstancePool::Fit(const models::ModelEntry& model) {
  std::vector<placement::PlacementDevice> devices;
  {
    MutexLock lock(list_mu_);
    if (!devices_) return std::nullopt;
    devices = *devices_;
  }
  // Speech and image models run on the CPU whole: the file's size is what counts.
  if (model.info.speech || model.info.image) {
    return placement::FitOfSize(model.info.file_size, devices);
  }
  const placement::PlacementRequest request = RequestFor(model, ConfiguredSettings(model.name));
  Result<placement::EnginePlan> plan = placement::PlanPlacement(model.info, devices, request);
  // For "no": the model on the CPU alone at the context it was refused at.
  const uint64_t trained = model.info.context_length > 0 ? model.info.context_length : 4096;
  placement::LoadShape shape;
  shape.ctx_per_slot = std::min<uint64_t>(
      request.options.ctx_size.value_or(
          request.default_ctx_per_slot > 0 ? request.default_ctx_per_slot : 4096),
      trained);
  shape.parallel = request.options.parallel.value_or(request.default_parallel);
  uint64_t cpu_only = 0;
  for (const auto& m : placement::PredictMemory(model.info, shape, placement::Layout{}))
    cpu_only += m.Total();
  return placement::FitOfPlan(plan, model.info, devices, cpu_only);
}

std::optional<placement::ModelFit> InstancePool::FitOfSize(uint64_t file_bytes) {
  MutexLock lock(list_mu_);
  if (!devices_) return std::nullopt;
  return placement::FitOfSize(file_bytes, *devices_);
}

InstancePool::EntryList InstancePool::IdleInEvictionOrder(const std::string& model,
                                                          EntryList& busy) {
  std::vector<placement::EvictionCandidate> idle;
  std::map<std::string, std::shared_ptr<Entry>> by_key;
  const auto now = std::chrono::steady_clock::now();
  MutexLock lock(list_mu_);
  for (const auto& [name, entry] : entries_) {
    // A model's own instances are never evicted for it (a replica would
    // only replace one of them).
    if (name == model) continue;
    if (entry->state != Entry::State::kReady || entry->instance->in_flight.load() > 0) {
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

awaitable<Result<placement::EnginePlan>> InstancePool::AdmitMemory(const models::ModelEntry& model,
                                                                   Entry& entry) {
  co_await EnsureDevices();
  const auto wait_until = std::chrono::steady_clock::now() + options_.memory_wait;
  bool told = false;
  std::shared_ptr<Entry> drained;  // the busy instance this load is emptying, if any
  const EntryList none;
  Result<placement::EnginePlan> plan = PlanAgainst(model, entry, none);
  EntryList evict;
  while (!plan.ok() && plan.status().code() == ErrorCode::kInsufficientMemory) {
    // The fewest idle instances, in eviction order, that make it fit.
    evict.clear();
    EntryList busy;
    EntryList order = IdleInEvictionOrder(model.name, busy);
    // The error, if it still does not fit, is the one with every idle
    // instance gone: what is available at best.
    for (const auto& candidate : order) {
      evict.push_back(candidate);
      plan = PlanAgainst(model, entry, evict);
      if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    }
    if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    // Instances in use hold the memory: wait for one to go idle (then it
    // can be evicted) rather than fail a request that fits once they do;
    // 507 only when even an empty machine could not hold it, or at the end
    // of placement.memory_wait_s. A replica never waits: it is only worth
    // having now.
    EntryList everyone = order;
    everyone.insert(everyone.end(), busy.begin(), busy.end());
    bool fits_when_idle =
        !entry.replica && !busy.empty() && PlanAgainst(model, entry, everyone).ok();
    if (!fits_when_idle || std::chrono::steady_clock::now() >= wait_until) {
      std::string message = plan.status().message();
      if (!busy.empty()) message += "; in use and not evicted: " + JoinNames(busy);
      StopDraining(drained);
      co_return InsufficientMemory(message);
    }
    if (!told) {
      spdlog::info("'{}' waits for memory held by {} (in use)", model.name, JoinNames(busy));
      told = true;
    }
    // For an urgent request, stop feeding one of them, so it goes idle and
    // can be evicted even while its own queue is full (a swap: its requests
    // reload it later). Others wait their turn without forcing swaps.
    if (!drained && entry.may_drain) drained = StartDraining(busy, model.name);
    asio::steady_timer pause(strand_, std::chrono::milliseconds(100));
    co_await pause.async_wait(asio::as_tuple(use_awaitable));
    plan = PlanAgainst(model, entry, none);
  }
  // The drained instance was emptied for this load. If the load found room
  // without it (another instance went idle first) or failed, it serves
  // again: left draining, its requests would wait for an eviction that no
  // one is going to do.
  if (drained && (!plan.ok() || std::find(evict.begin(), evict.end(), drained) == evict.end())) {
    spdlog::info("'{}' serves again: the load of '{}' {}", drained->model, model.name,
                 plan.ok() ? "found room without it" : "failed");
    StopDraining(drained);
  }
  if (!plan.ok()) co_return plan;
  {
    MutexLock lock(list_mu_);
    entry.plan = *plan;  // reserved before the evictions below yield the strand
  }
  for (const auto& victim : evict) {
    co_await EvictIfIdle(victim, "to make room for '" + model.name + "'");
  }
  co_return plan;
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
    Erase(entry);
  }
  PublishCapacity(entry->model);
  spdlog::info("evicting idle '{}' (pid {}) {} (on {})", entry->model, instance->pid(), reason,
               instance->device());
  // Its conversations come back if it is loaded again.
  if (!entry->replica) co_await SaveSlotsOf(instance);
  co_await TerminateOffStrand(instance);
  if (events_) events_->EngineStopped(entry->model, "memory");
  co_return true;
}

void InstancePool::LearnFromMeasured(const models::ModelEntry& model, const Instance& instance,
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
  if (events_) {
    events_->EngineMemory(instance.model(), instance.device(), placement::kCpuDevice, predicted,
                          measured);
  }
  // Learned against the ledger's own figure, without what earlier loads
  // added: otherwise each correction would be measured against itself and
  // drift back towards 1. The RSS is taken right after the load, so with
  // mmap'd weights it errs low (pages not yet touched are not counted); the
  // correction only ever raises a prediction for that reason
  // (MemoryCorrection::Factor). The write (a small file, fsync'd) runs on
  // the blocking pool, off the strand; the destructor joins that pool
  // before corrections_ goes.
  const placement::DeviceMemory& cpu = plan.memory.front().memory;
  const uint64_t ledger = cpu.Total() - cpu.learned;
  const placement::CorrectionScope scope = plan.correction_scope;
  asio::post(
      blocking_, [this, name = model.name, file = FileIdentity(model), scope, ledger, measured] {
        auto learned = corrections_.Record(name, file, scope, ledger, measured);
        if (!learned.ok()) {
          spdlog::warn("'{}': the learned memory correction is not saved: {}", name,
                       learned.status().message());
          return;
        }
        spdlog::info(
            "'{}' memory correction ({}): measured/predicted {:.3f} this load, learned {:.3f} from "
            "{} load(s); the next such placement scales the CPU prediction by {:.3f}",
            name, placement::CorrectionScopeName(scope),
            static_cast<double>(measured) / std::max<uint64_t>(ledger, 1), learned->ratio,
            learned->loads, learned->Factor());
      });
}

}  // namespace zest::scheduler
