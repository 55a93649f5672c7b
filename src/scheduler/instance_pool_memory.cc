// InstancePool: memory admission and eviction before a load (see Acquire in
// instance_pool.h). Runs on the pool's strand.
#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <bit>
#include <limits>

#include "engines/process_memory.h"
#include "placement/eviction.h"
#include "placement/policy.h"
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

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

}  // namespace

engines::EnginePlacement EnginePlacementFor(const placement::EnginePlan& plan) {
  engines::EnginePlacement p;
  p.devices = plan.gpu_devices;
  p.gpu_layers = plan.n_gpu_layers;
  p.tensor_split = plan.tensor_split;
  p.n_cpu_moe = plan.n_cpu_moe;
  p.kv_type = placement::KvTypeName(plan.kv_type);
  p.flash_attention = plan.flash_attention;
  p.no_mmap = plan.no_mmap;
  p.mlock = plan.mlock;
  p.batch = plan.batch;
  p.ubatch = plan.ubatch;
  return p;
}

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
    std::lock_guard lock(list_mu_);
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
                                                        const std::vector<std::string>& evicted) {
  std::vector<std::shared_ptr<Entry>> others;
  std::vector<const placement::EnginePlan*> loaded;
  config::ModelSettings options = ConfiguredSettings(model.name);
  {
    std::lock_guard lock(list_mu_);
    // The options this load was started with (an explicit load's may differ).
    if (auto it = entries_.find(model.name); it != entries_.end()) options = it->second->settings;
    for (const auto& [name, entry] : entries_) {
      if (name == model.name || std::find(evicted.begin(), evicted.end(), name) != evicted.end()) {
        continue;
      }
      others.push_back(entry);
      loaded.push_back(&entry->plan);
    }
  }
  placement::PlacementRequest request = RequestFor(model, std::move(options));
  std::lock_guard lock(list_mu_);  // the plans of loading entries may still change
  return placement::PlanPlacement(model.info, placement::FreeAfter(*devices_, loaded), request);
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
  std::error_code ec;
  if (!model.mmproj.empty()) request.mmproj_bytes = std::filesystem::file_size(model.mmproj, ec);
  if (ec) request.mmproj_bytes = 0;
  return request;
}

std::optional<placement::ModelFit> InstancePool::Fit(const models::ModelEntry& model) {
  std::vector<placement::PlacementDevice> devices;
  {
    std::lock_guard lock(list_mu_);
    if (!devices_) return std::nullopt;
    devices = *devices_;
  }
  const placement::PlacementRequest request = RequestFor(model, ConfiguredSettings(model.name));
  Result<placement::EnginePlan> plan = placement::PlanPlacement(model.info, devices, request);
  // For "no": the model on the CPU alone at the context it was refused at.
  const uint64_t trained = model.info.context_length > 0 ? model.info.context_length : 4096;
  placement::LoadShape shape;
  shape.ctx_per_slot = std::min<uint64_t>(
      request.options.ctx_size.value_or(request.default_ctx_per_slot > 0 ? request.default_ctx_per_slot : 4096),
      trained);
  shape.parallel = request.options.parallel.value_or(request.default_parallel);
  uint64_t cpu_only = 0;
  for (const auto& m : placement::PredictMemory(model.info, shape, placement::Layout{})) cpu_only += m.Total();
  return placement::FitOfPlan(plan, model.info, devices, cpu_only);
}

std::optional<placement::ModelFit> InstancePool::FitOfSize(uint64_t file_bytes) {
  std::lock_guard lock(list_mu_);
  if (!devices_) return std::nullopt;
  return placement::FitOfSize(file_bytes, *devices_);
}

std::vector<std::string> InstancePool::IdleInEvictionOrder(const std::string& except,
                                                           std::vector<std::string>& busy) {
  std::vector<placement::EvictionCandidate> idle;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(list_mu_);
  for (const auto& [name, entry] : entries_) {
    if (name == except) continue;
    if (entry->state != Entry::State::kReady || entry->instance->in_flight.load() > 0) {
      busy.push_back(name);
      continue;
    }
    const double idle_s =
        std::chrono::duration<double>(now - entry->instance->LastUsed()).count();
    idle.push_back({name, idle_s, entry->load_s});
  }
  return placement::EvictionOrder(std::move(idle));
}

awaitable<Result<placement::EnginePlan>> InstancePool::AdmitMemory(const models::ModelEntry& model,
                                                                   Entry& entry) {
  co_await EnsureDevices();
  const auto wait_until = std::chrono::steady_clock::now() + options_.memory_wait;
  bool told = false;
  std::string drained;  // the busy instance this load is emptying, if any
  Result<placement::EnginePlan> plan = PlanAgainst(model, {});
  std::vector<std::string> evict;
  while (!plan.ok() && plan.status().code() == ErrorCode::kInsufficientMemory) {
    // The fewest idle instances, in eviction order, that make it fit.
    evict.clear();
    std::vector<std::string> busy;
    std::vector<std::string> order = IdleInEvictionOrder(model.name, busy);
    // The error, if it still does not fit, is the one with every idle
    // instance gone: what is available at best.
    for (const std::string& candidate : order) {
      evict.push_back(candidate);
      plan = PlanAgainst(model, evict);
      if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    }
    if (plan.ok() || plan.status().code() != ErrorCode::kInsufficientMemory) break;
    // Instances in use hold the memory: wait for one to go idle (then it
    // can be evicted) rather than fail a request that fits once they do;
    // 507 only when even an empty machine could not hold it, or at the end
    // of placement.memory_wait_s.
    std::vector<std::string> everyone = order;
    everyone.insert(everyone.end(), busy.begin(), busy.end());
    bool fits_when_idle = !busy.empty() && PlanAgainst(model, everyone).ok();
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
    if (drained.empty() && entry.may_drain) drained = StartDraining(busy, model.name);
    asio::steady_timer pause(strand_, std::chrono::milliseconds(100));
    co_await pause.async_wait(asio::as_tuple(use_awaitable));
    plan = PlanAgainst(model, {});
  }
  if (!plan.ok()) co_return plan;
  {
    std::lock_guard lock(list_mu_);
    entry.plan = *plan;  // reserved before the evictions below yield the strand
  }
  for (const std::string& victim : evict) {
    co_await EvictIfIdle(victim, "to make room for '" + model.name + "'");
  }
  co_return plan;
}

std::string InstancePool::StartDraining(const std::vector<std::string>& busy,
                                        const std::string& for_model) {
  std::lock_guard lock(list_mu_);
  for (const std::string& name : busy) {
    auto it = entries_.find(name);
    if (it == entries_.end() || it->second->state != Entry::State::kReady) continue;
    it->second->draining = true;
    spdlog::info("draining '{}' to make room for '{}'", name, for_model);
    return name;
  }
  return "";
}

void InstancePool::StopDraining(const std::string& model) {
  if (model.empty()) return;
  std::lock_guard lock(list_mu_);
  if (auto it = entries_.find(model); it != entries_.end()) it->second->draining = false;
}

awaitable<bool> InstancePool::EvictIfIdle(std::string model, std::string reason) {
  std::shared_ptr<Instance> instance;
  {
    std::lock_guard lock(list_mu_);
    auto it = entries_.find(model);
    if (it == entries_.end() || it->second->state != Entry::State::kReady ||
        it->second->instance->in_flight.load() > 0) {
      co_return false;
    }
    instance = it->second->instance;
    entries_.erase(it);
  }
  spdlog::info("evicting idle '{}' (pid {}) {}", model, instance->pid(), reason);
  co_await SaveSlotsOf(instance);  // its conversations come back if it is loaded again
  co_await TerminateOffStrand(instance);
  if (events_) events_->EngineStopped(model, "memory");
  co_return true;
}

void InstancePool::LogPredictedVsMeasured(const Instance& instance,
                                          const placement::EnginePlan& plan) {
  const uint64_t measured = engines::ProcessTreeRssBytes(instance.pid());
  const uint64_t predicted = plan.BytesOn(placement::kCpuDevice);
  const double error =
      measured > 0 ? (static_cast<double>(predicted) - measured) / measured * 100 : 0;
  spdlog::info("'{}' memory: predicted {} on the CPU (total {}), measured RSS {} ({:+.1f}%)",
               instance.model(), placement::FormatBytes(predicted),
               placement::FormatBytes(plan.TotalBytes()), placement::FormatBytes(measured), error);
  // Only the CPU side is measured: device memory per process is not known here.
  if (events_ && measured > 0) {
    events_->EngineMemory(instance.model(), placement::kCpuDevice, predicted, measured);
  }
}

}  // namespace zest::scheduler
