// PoolOptions: how InstancePool (instance_pool.h) runs engines: where their
// sockets, logs and slots go, the defaults a model's settings override, the
// crash-loop breaker's timing, how devices are found, and what engines may
// be given. Built once from the settings (app/), read-only afterwards.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "engines/engine_set.h"
#include "engines/launcher.h"
#include "models/model_registry.h"
#include "placement/devices.h"
#include "placement/npu.h"

namespace zest::scheduler {

class SessionTier;

struct PoolOptions {
  // 0700; each engine has a directory here for its socket (engine-N/).
  std::filesystem::path run_dir;
  std::filesystem::path log_dir;  // engine log files
  std::filesystem::path pid_dir;  // engine pid files (engines/pid_file.h); empty = none
  int ctx_size = 4096;            // per slot, unless a model's settings say; 0 = largest that fits
  int parallel = 4;
  int threads = 0;    // engine -t for every engine; 0 = zest shares cpu_cores (below)
  int cpu_cores = 0;  // physical cores the CPU engines share; 0 = hardware_concurrency
  std::chrono::seconds ready_timeout{120};
  // How long a load may wait for instances in use to go idle (and be
  // evicted) when it fits only without them; then 507.
  std::chrono::seconds memory_wait{300};
  // Crash-loop breaker (crash_loop.h): an engine that fails on its own
  // holds its model off for `restart_backoff`, doubling with each failure
  // in a row (within the window) up to the max; zero = never held off.
  std::chrono::milliseconds restart_backoff{1000};
  std::chrono::milliseconds restart_backoff_max{60'000};
  std::chrono::seconds crash_loop_window{60};
  // Where each model's saved slots go (slot_cache.h), one 0700 directory per
  // model; empty = slots are not saved across unloads.
  std::filesystem::path slot_dir;
  // Saves the conversations an engine served (not only its slots) before
  // it stops (session_tier.h); null: none. Outlives the pool.
  SessionTier* session_tier = nullptr;
  // Experimental prefill/decode split: the directory through which slots are
  // handed between instances; replicas save and restore there (the first
  // instance too when slot_dir is empty). Empty = the split is off.
  std::filesystem::path handoff_dir;
  // Placement: the devices and the memory zest may use on each, asked once
  // (off the I/O threads: it may probe the engine) at the first load. Unset:
  // one CPU with no memory limit.
  std::function<std::vector<placement::PlacementDevice>()> discover_devices;
  // The ggml RPC workers' devices (placement/devices.h), asked again
  // whenever a load needs them, i.e. this machine cannot hold the model
  // (blocking, off the I/O threads): a worker that went away is planned
  // without, one that came back with. It is given the endpoints
  // running engines use, which it must not probe: ggml-rpc-server serves
  // one client at a time. Unset: no workers.
  std::function<std::vector<placement::PlacementDevice>(const std::vector<std::string>& in_use)>
      remote_devices;
  // The engines and which serves a model (engines/engine_set.h). Unset:
  // every load fails (no engine).
  std::shared_ptr<const engines::EngineSet> engines;
  // What starts them (engines/launcher.h); unset = real processes.
  std::shared_ptr<engines::Launcher> launcher;
  // The NPU as placement sees it (present, usable, why: placement/npu.h).
  placement::NpuRequest npu;
  std::map<std::string, config::ModelSettings> model_settings;  // by model name
  // Where zest serves models from (models directory, Hugging Face store):
  // files that engine flags name must lie below one of them.
  std::vector<std::filesystem::path> model_roots;
  // Hidden from engines even where their sandbox shows the host's system
  // directories (zest's home: keys, config, logs).
  std::vector<std::filesystem::path> hidden_dirs;
  // Whether zest asks every request for an API key now
  // (http::Authenticator::enabled); unset: it does not. RPC workers are
  // refused without keys (engines/llama_server_adapter.cc says why).
  std::function<bool()> keys_required;
  // Keys share the engines' prompt caches (security.share_prompt_cache).
  // Otherwise, while keys are required, each request's slot is zest's
  // choice (slot_owners.h) and an engine gets no host-RAM prompt cache
  // unless its model's cache_ram says so: with zest choosing the slots the
  // engine never reads from that cache.
  bool share_prompt_cache = false;
  // Where the learned memory corrections persist (placement/
  // memory_correction.h); empty = learned for this process only.
  std::filesystem::path memory_corrections_file;
  // Finds a model by name: the draft models speculative decoding names
  // (speculative_choice.h). Empty: a draft is never found.
  std::function<Result<models::ModelEntry>(const std::string&)> find_model;
};

}  // namespace zest::scheduler
