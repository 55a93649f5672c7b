#include "app/rpc_worker.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/engine_search.h"
#include "core/private_dirs.h"
#include "engines/engine_adapter.h"
#include "engines/engine_locator.h"
#include "engines/process.h"
#include "engines/rpc_backend.h"
#include "hardware/cpu.h"

namespace zest::app {
namespace {

using Clock = std::chrono::steady_clock;

// A run that lasted this long was healthy: the next failure starts the
// backoff from the beginning.
constexpr auto kHealthyRun = std::chrono::seconds(60);
constexpr auto kFirstBackoff = std::chrono::seconds(1);
constexpr auto kMaxBackoff = std::chrono::seconds(30);

// The device to serve: the first GPU llama-server sees (not a software
// renderer), else the CPU. One device per worker keeps the head's device
// names (RPC0, RPC1...) one per worker.
std::string DefaultDevice(const config::Settings& settings) {
  engines::EngineSearch search = EngineSearchFor(settings);
  search.log = false;
  const std::shared_ptr<const engines::EngineSet> set = engines::DiscoverEngines(search);
  const engines::EngineAdapter* llama = set->language();
  if (llama == nullptr || !llama->Available().ok()) return "CPU";
  Result<engines::EngineInfo> info = llama->ProbeDevices();
  if (!info.ok()) return "CPU";
  for (const engines::EngineDevice& d : info->devices) {
    if (!d.software) return d.name;
  }
  return "CPU";
}

int PhysicalCores() {
  const hardware::CpuInfo cpu = hardware::DiscoverCpu({}, /*use_cpuid=*/false);
  return std::max(1, cpu.physical_cores);
}

// Waits up to `timeout` for SIGINT or SIGTERM (blocked in this thread).
bool Signalled(const sigset_t& signals, std::chrono::milliseconds timeout) {
  const timespec wait{static_cast<time_t>(timeout.count() / 1000),
                      static_cast<long>(timeout.count() % 1000) * 1'000'000};
  return sigtimedwait(&signals, nullptr, &wait) > 0;
}

}  // namespace

engines::SpawnOptions RpcWorkerSpawn(const config::Settings& settings,
                                     const engines::EngineLocation& location,
                                     const engines::RpcServerOptions& server,
                                     const std::filesystem::path& cache_dir) {
  engines::SandboxMounts mounts;
  mounts.hidden = {settings.home};
  std::vector<std::string> env;
  if (!cache_dir.empty()) {
    mounts.writable = {cache_dir};
    env.push_back("LLAMA_CACHE=" + cache_dir.string());
  }
  engines::SpawnOptions spawn;
  spawn.argv = location.Command(engines::RpcServerArgs(server), mounts, /*own_network=*/false);
  spawn.env = location.Environment(env);
  spawn.clear_env = true;
  return spawn;
}

int RunRpcWorker(const config::Settings& settings, const WorkerOptions& options) {
  if (Status address = engines::CheckWorkerAddress(options.host, options.insecure); !address.ok()) {
    std::fprintf(stderr, "zest worker: %s\n", address.message().c_str());
    return 2;
  }
  engines::LocateOptions locate;
  locate.configured = settings.rpc_server;
  locate.path_env = config::ProcessEnv("PATH").value_or("");
  locate.rootfs = settings.engine_rootfs;
  locate.binary_name = engines::kRpcServerName;
  locate.rootfs_binary = engines::RpcServerRootfsPath();
  Result<engines::EngineLocation> location = engines::LocateEngine(locate);
  if (!location.ok()) {
    std::fprintf(stderr, "zest worker: %s (Debian: llama.cpp-tools-extra)\n",
                 location.status().message().c_str());
    return 2;
  }

  engines::RpcServerOptions server;
  server.host = options.host;
  server.port = options.port;
  server.threads = options.threads > 0 ? options.threads : PhysicalCores();
  server.device = options.device.empty() ? DefaultDevice(settings) : options.device;
  server.cache = options.cache;
  std::filesystem::path cache;
  if (options.cache) {
    cache = settings.home / "cache" / "rpc";
    if (Status made = CreatePrivateDirectories(cache); !made.ok()) {
      std::fprintf(stderr, "zest worker: %s\n", made.message().c_str());
      return 2;
    }
  }
  engines::SpawnOptions spawn = RpcWorkerSpawn(settings, *location, server, cache);
  if (CreatePrivateDirectories(settings.LogDir()).ok()) {
    spawn.log_file = settings.LogDir() / "rpc-worker.log";
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto backoff = std::chrono::duration_cast<std::chrono::milliseconds>(kFirstBackoff);
  for (;;) {
    Result<std::unique_ptr<engines::Process>> process = engines::Process::Spawn(spawn);
    if (!process.ok()) {
      std::fprintf(stderr, "zest worker: %s\n", process.status().message().c_str());
      return 2;
    }
    spdlog::info(
        "RPC worker on {}:{}: serving {} with {} thread(s) (ggml-rpc-server, pid {}); no "
        "authentication: keep this port on a private network",
        server.host, server.port, server.device, server.threads, (*process)->pid());
    const auto started = Clock::now();
    std::optional<int> status;
    while (!(status = (*process)->ExitStatus())) {
      if (Signalled(signals, std::chrono::milliseconds(200))) {
        spdlog::info("stopping the RPC worker");
        (*process)->Terminate(std::chrono::seconds(5));
        return 0;
      }
    }
    const std::vector<std::string> tail = (*process)->output().Tail(5);
    std::string said;
    for (const std::string& line : tail) said += (said.empty() ? "" : " | ") + line;
    if (Clock::now() - started > kHealthyRun) backoff = kFirstBackoff;
    spdlog::warn("ggml-rpc-server {} ({}); starting it again in {} ms",
                 engines::Process::DescribeExit(*status), said, backoff.count());
    if (Signalled(signals, backoff)) return 0;
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, kMaxBackoff);
  }
}

}  // namespace zest::app
