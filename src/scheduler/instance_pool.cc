#include "scheduler/instance_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <thread>

#include "engines/llama_server_args.h"
#include "http/upstream_client.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using asio::awaitable;
using asio::use_awaitable;

constexpr auto kReadyPollInterval = std::chrono::milliseconds(20);
constexpr auto kDeathGracePeriod = std::chrono::milliseconds(1000);

// Engine log files are named after the model; names may contain '/' or ':'.
std::string SafeFileName(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ':') c = '_';
  }
  return name;
}

// The lines of an engine's output that explain a failure: those that mention
// an error, else the last few.
std::string FailureReason(const engines::Process& process) {
  std::vector<std::string> tail = process.output().Tail(40);
  std::string errors;
  for (const std::string& line : tail) {
    if (line.find("error") != std::string::npos || line.find("failed") != std::string::npos) {
      errors += (errors.empty() ? "" : "\n") + line;
    }
  }
  if (!errors.empty()) return errors;
  std::string last;
  for (std::size_t i = tail.size() > 8 ? tail.size() - 8 : 0; i < tail.size(); ++i) {
    last += (last.empty() ? "" : "\n") + tail[i];
  }
  return last;
}

}  // namespace

struct InstancePool::Entry {
  explicit Entry(asio::any_io_executor executor) : done(executor) {
    done.expires_at(asio::steady_timer::time_point::max());
  }
  enum class State { kLoading, kReady, kFailed };
  State state = State::kLoading;         // guarded by list_mu_
  std::shared_ptr<Instance> instance;    // guarded by list_mu_
  Status error;                          // set before `done` is cancelled
  asio::steady_timer done;               // cancelled when the load finishes; strand only
};

InstancePool::InstancePool(asio::io_context& io, PoolOptions options,
                           Result<engines::EngineLocation> engine)
    : options_(std::move(options)), engine_(std::move(engine)), strand_(asio::make_strand(io)) {}

InstancePool::~InstancePool() {
  StopAll();
  blocking_.join();
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::Acquire(models::ModelEntry model) {
  // Fast path, the common case: the model is loaded and its engine alive.
  // No hop to the strand (a thread switch per request), just the list lock.
  if (std::shared_ptr<Instance> ready = FindReady(model.name)) co_return ready;
  // Everything else runs on the pool's strand and resumes the caller on its
  // own executor.
  co_return co_await asio::co_spawn(strand_, AcquireOnStrand(std::move(model)), use_awaitable);
}

std::shared_ptr<Instance> InstancePool::FindReady(const std::string& model) {
  std::shared_ptr<Instance> instance;
  {
    std::lock_guard lock(list_mu_);
    auto it = entries_.find(model);
    if (it == entries_.end() || it->second->state != Entry::State::kReady) return nullptr;
    instance = it->second->instance;
  }
  return instance->Alive() ? instance : nullptr;
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::AcquireOnStrand(
    models::ModelEntry model) {
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(list_mu_);
    auto it = entries_.find(model.name);
    if (it != entries_.end()) entry = it->second;
  }
  if (entry && entry->state == Entry::State::kReady) {
    if (entry->instance->Alive()) co_return entry->instance;
    spdlog::warn("engine for '{}' (pid {}) has exited; starting a new one", model.name,
                 entry->instance->pid());
    co_await ReportBroken(entry->instance);
    entry = nullptr;
  }
  if (entry && entry->state == Entry::State::kLoading) {
    co_await entry->done.async_wait(asio::as_tuple(use_awaitable));
    if (entry->state == Entry::State::kReady) co_return entry->instance;
    co_return entry->error;
  }
  co_return co_await Load(model);
}

awaitable<Result<std::shared_ptr<Instance>>> InstancePool::Load(const models::ModelEntry& model) {
  auto entry = std::make_shared<Entry>(strand_);
  fs::path socket = options_.run_dir / ("engine-" + std::to_string(++next_socket_id_) + ".sock");
  {
    std::lock_guard lock(list_mu_);
    entries_[model.name] = entry;
  }
  auto finish = [&](Status error) {
    std::lock_guard lock(list_mu_);
    entry->state = error.ok() ? Entry::State::kReady : Entry::State::kFailed;
    entry->error = std::move(error);
    auto it = entries_.find(model.name);
    if (!entry->error.ok() && it != entries_.end() && it->second == entry) entries_.erase(it);
    entry->done.cancel();
  };

  auto start = std::chrono::steady_clock::now();
  Result<std::unique_ptr<engines::Process>> process = SpawnEngine(model, socket);
  if (!process.ok()) {
    if (events_) events_->EngineFailedToStart(model.name);
    finish(process.status());
    co_return process.status();
  }
  auto instance = std::make_shared<Instance>(model.name, socket, std::move(process).value());
  {
    std::lock_guard lock(list_mu_);
    entry->instance = instance;
  }
  spdlog::info("loading '{}' (pid {}, socket {})", model.name, instance->pid(), socket.string());
  if (model.info.synthetic) {
    spdlog::warn("'{}' is a SYNTHETIC model with random weights: it produces gibberish. "
                 "Put a real GGUF model in the models directory.", model.name);
  }
  Status ready = co_await WaitReady(*instance);
  if (!ready.ok()) {
    spdlog::error("'{}' failed to load: {}", model.name, ready.message());
    co_await TerminateOffStrand(instance);
    if (events_) events_->EngineFailedToStart(model.name);
    finish(ready);
    co_return ready;
  }
  finish(Status::Ok());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("'{}' ready in {:.2f} s", model.name, secs);
  if (events_) events_->EngineReady(model.name, secs);
  co_return instance;
}

engines::LlamaServerOptions InstancePool::EngineOptions(const models::ModelEntry& model,
                                                       const fs::path& socket) const {
  engines::LlamaServerOptions o;
  o.model = model.path;
  o.alias = model.name;
  o.socket = socket;
  o.mmproj = model.mmproj;
  o.parallel = options_.parallel;
  o.threads = options_.threads;
  o.embeddings = model.info.embedding;
  // ctx_size is what one request may use. llama-server splits -c between its
  // slots, so it gets ctx_size × parallel; a context longer than the model
  // was trained for only wastes KV memory.
  int per_slot = options_.ctx_size;
  if (model.info.context_length > 0 && per_slot > 0 &&
      static_cast<uint64_t>(per_slot) > model.info.context_length) {
    per_slot = static_cast<int>(model.info.context_length);
  }
  o.ctx_size = per_slot * options_.parallel;
  return o;
}

// The directories a model's files live in, as the sandbox must see them: the
// names we know them by and, through symlinks (the HF cache), the blobs.
std::vector<fs::path> ModelDirs(const models::ModelEntry& model) {
  std::vector<fs::path> dirs;
  for (const fs::path& file : {model.path, model.mmproj}) {
    if (file.empty()) continue;
    std::error_code ec;
    for (const fs::path& dir : {file.parent_path(), fs::canonical(file, ec).parent_path()}) {
      if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
  }
  return dirs;
}

Result<std::unique_ptr<engines::Process>> InstancePool::SpawnEngine(
    const models::ModelEntry& model, const fs::path& socket) {
  if (!engine_.ok()) return Unavailable(engine_.status().message());
  std::error_code ec;
  fs::remove(socket, ec);
  engines::SpawnOptions spawn;
  spawn.argv = engine_->Command(engines::LlamaServerArgs(EngineOptions(model, socket)),
                                {options_.run_dir}, ModelDirs(model));
  spawn.log_file = options_.log_dir / (SafeFileName(model.name) + ".log");
  return engines::Process::Spawn(spawn);
}

awaitable<Status> InstancePool::WaitReady(Instance& instance) {
  auto deadline = std::chrono::steady_clock::now() + options_.ready_timeout;
  asio::steady_timer timer(strand_);
  while (true) {
    if (std::optional<int> exit = instance.process().ExitStatus()) {
      co_return EngineFailed("engine for '" + instance.model() + "' " +
                             engines::Process::DescribeExit(*exit) + " while loading: " +
                             FailureReason(instance.process()));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      co_return Status(ErrorCode::kTimeout,
                       "engine for '" + instance.model() + "' not ready after " +
                           std::to_string(options_.ready_timeout.count()) + " s");
    }
    http::UpstreamRequest health;
    health.target = "/health";
    health.connect_timeout = std::chrono::milliseconds(500);
    auto response = co_await http::SendUpstream(strand_, instance.socket().string(), health);
    if (response.ok() && (*response)->status() == 200) co_return Status::Ok();
    timer.expires_after(kReadyPollInterval);
    co_await timer.async_wait(asio::as_tuple(use_awaitable));
  }
}

// The public coroutines below hop onto the strand (or the blocking pool) by
// co_spawning a member coroutine, never a capturing lambda: GCC 12
// miscompiles lambda coroutines whose captures outlive a suspension.
awaitable<void> InstancePool::ReportBroken(std::shared_ptr<Instance> instance) {
  co_await asio::co_spawn(strand_, ForgetIfDead(std::move(instance)), use_awaitable);
}

awaitable<void> InstancePool::ForgetIfDead(std::shared_ptr<Instance> instance) {
  // A request failed on this instance. When llama-server itself was killed,
  // its bwrap parent (the process we hold) exits a few milliseconds later:
  // give it a moment before deciding, so the next request does not get the
  // dying instance again. A live process means a transient failure.
  asio::steady_timer timer(strand_);
  for (auto waited = std::chrono::milliseconds(0);
       instance->Alive() && waited < kDeathGracePeriod; waited += kReadyPollInterval) {
    timer.expires_after(kReadyPollInterval);
    co_await timer.async_wait(asio::as_tuple(use_awaitable));
  }
  if (instance->Alive()) co_return;
  bool forgotten = false;
  {
    std::lock_guard lock(list_mu_);
    auto it = entries_.find(instance->model());
    forgotten = it != entries_.end() && it->second->instance == instance;
    if (forgotten) entries_.erase(it);
  }
  // Counted once per instance: several requests may report the same death.
  if (forgotten && events_) events_->EngineCrashed(instance->model());
  spdlog::warn("engine for '{}' (pid {}) {}; last output:\n{}", instance->model(), instance->pid(),
               engines::Process::DescribeExit(instance->process().ExitStatus().value_or(0)),
               FailureReason(instance->process()));
  co_await TerminateOffStrand(instance);
}

awaitable<Status> InstancePool::Stop(std::string model) {
  co_return co_await asio::co_spawn(strand_, StopOnStrand(std::move(model)), use_awaitable);
}

awaitable<Status> InstancePool::StopOnStrand(std::string model) {
  std::shared_ptr<Instance> instance;
  {
    std::lock_guard lock(list_mu_);
    auto it = entries_.find(model);
    if (it != entries_.end() && it->second->instance) {
      instance = it->second->instance;
      if (it->second->state == Entry::State::kReady) entries_.erase(it);
    }
  }
  if (!instance) co_return NotFound("model '" + model + "' is not loaded");
  // A load in progress notices the exit and fails its waiters.
  co_await TerminateOffStrand(instance);
  spdlog::info("stopped '{}' (pid {})", model, instance->pid());
  if (events_) events_->EngineStopped(model, "unload");
  co_return Status::Ok();
}

awaitable<void> InstancePool::TerminateOffStrand(std::shared_ptr<Instance> instance) {
  co_await asio::co_spawn(blocking_, TerminateBlocking(std::move(instance)), use_awaitable);
}

awaitable<void> InstancePool::TerminateBlocking(std::shared_ptr<Instance> instance) {
  instance->process().Terminate();
  std::error_code ec;
  fs::remove(instance->socket(), ec);
  co_return;
}

std::vector<InstanceStatus> InstancePool::List() {
  std::vector<InstanceStatus> out;
  std::lock_guard lock(list_mu_);
  auto now = std::chrono::steady_clock::now();
  for (const auto& [name, entry] : entries_) {
    if (!entry->instance) continue;
    const Instance& in = *entry->instance;
    out.push_back({name, in.pid(), in.socket().string(),
                   entry->state == Entry::State::kReady ? "ready" : "loading",
                   std::chrono::duration<double>(now - in.started_at()).count(),
                   in.in_flight.load()});
  }
  return out;
}

std::shared_ptr<Instance> InstancePool::Find(const std::string& model) {
  std::lock_guard lock(list_mu_);
  auto it = entries_.find(model);
  return it == entries_.end() ? nullptr : it->second->instance;
}

void InstancePool::StopAll() {
  std::vector<std::shared_ptr<Instance>> instances;
  {
    std::lock_guard lock(list_mu_);
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
      std::error_code ec;
      fs::remove(instance->socket(), ec);
    });
  }
}

}  // namespace zest::scheduler
