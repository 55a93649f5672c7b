// `zest worker`: this machine as a ggml RPC worker (engines/rpc_backend.h)
// that a head zest spreads models over. Runs ggml-rpc-server in the engine
// sandbox (with the network: it listens on TCP), restarts it when it fails,
// and stops it on SIGINT or SIGTERM.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "config/settings.h"
#include "engines/engine_locator.h"
#include "engines/process.h"
#include "engines/rpc_backend.h"

namespace zest::app {

struct WorkerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 50052;
  int threads = 0;        // 0: every physical core
  std::string device;     // empty: the first GPU llama-server sees, else the CPU
  bool cache = false;     // keep received tensors on disk ($ZEST_HOME/cache/rpc)
  bool insecure = false;  // allow a wildcard or public address
};

// What `zest worker` spawns: ggml-rpc-server for `server`, at `location`,
// in the engine sandbox when there is one but sharing zest's network (the
// head reaches it on TCP), with zest's home hidden and only the engines'
// allow-listed environment. With `cache_dir` (which must exist) that
// directory is writable there and named in LLAMA_CACHE. Pure.
engines::SpawnOptions RpcWorkerSpawn(const config::Settings& settings,
                                     const engines::EngineLocation& location,
                                     const engines::RpcServerOptions& server,
                                     const std::filesystem::path& cache_dir);

// Blocks until SIGINT or SIGTERM; returns the process's exit code (2 for a
// refused address or a missing ggml-rpc-server, with the reason on stderr).
int RunRpcWorker(const config::Settings& settings, const WorkerOptions& options);

}  // namespace zest::app
