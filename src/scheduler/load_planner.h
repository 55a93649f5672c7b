// LoadPlanner: what a load of a model should look like, apart from the
// pool's bookkeeping. From the model, its options (configured, or an
// explicit load's) and the memory the other instances leave on each device
// it makes the placement request (server defaults, learned memory
// corrections, the model's NPU build) and the plan: a speech or image model
// whole on the CPU, a replica on a device the model's other instances do
// not use, else the placement policy's choice; it shares the CPU's cores
// among the CPU engines; it says whether a model fits this machine at all
// (`zest list`); and it learns from an engine's measured memory.
// InstancePool (instance_pool.h) gathers what the other instances hold and
// admits, evicts and starts; this decides nothing about them.
//
// Thread-safe: immutable options and the corrections store (itself
// thread-safe).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/file_memo.h"
#include "core/result.h"
#include "models/model_registry.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"
#include "placement/fit.h"
#include "placement/memory_correction.h"
#include "placement/policy.h"
#include "scheduler/speculative_choice.h"

namespace zest::scheduler {

struct PlannerOptions {
  int ctx_size = 4096;  // per slot, unless a model's settings say; 0 = largest that fits
  int parallel = 4;
  int threads = 0;    // engine -t for every engine; 0 = share cpu_cores
  int cpu_cores = 0;  // physical cores the CPU engines share; 0 = hardware_concurrency
  placement::NpuRequest npu;
  std::map<std::string, config::ModelSettings> model_settings;  // by model name
  std::filesystem::path memory_corrections_file;                // empty = this process only
  FindModel find_model;  // draft models by name; empty = no draft can be found
  // Whether each key's prompts are kept apart now (PoolOptions::
  // share_prompt_cache): then a model whose cache_ram is unset gets none.
  std::function<bool()> private_prompt_caches;
};

// What the other instances leave a load (InstancePool gathers it).
struct LoadContext {
  std::vector<placement::PlacementDevice> free;  // after every other instance's plan
  bool replica = false;                          // another instance of a loaded model
  std::vector<std::string> used;                 // devices its other instances compute on
  std::string npu_held_by;                       // the model on the NPU now; empty = none
  // Its `auto` draft was switched off for not paying (draft_acceptance.h):
  // an `auto` load goes without it.
  std::optional<placement::DraftSwitchOff> draft_switched_off;
};

class LoadPlanner {
 public:
  explicit LoadPlanner(PlannerOptions options);

  // The model's options from the configuration; empty when it has none.
  config::ModelSettings Configured(const std::string& model) const;
  // What placement is asked for `model` loaded with `settings`.
  placement::PlacementRequest RequestFor(const models::ModelEntry& model,
                                         config::ModelSettings settings) const;
  // The plan for one instance of `model` in what `context` leaves.
  // kInsufficientMemory (needed vs available, per device) when it does not fit.
  Result<placement::EnginePlan> Plan(const models::ModelEntry& model,
                                     const config::ModelSettings& settings,
                                     const LoadContext& context) const;
  // Sets `plan`'s CPU threads: the user's engine.threads, else, when it
  // computes on the CPU, its share of the cores beside the CPU engines
  // running with `running` threads each (said in its explanation).
  void AssignCpuThreads(const models::ModelEntry& model, const std::vector<int>& running,
                        placement::EnginePlan& plan) const;
  // Whether this machine (`devices`, nothing loaded) can run the model with
  // its configured options (placement/fit.h).
  placement::ModelFit Fit(const models::ModelEntry& model,
                          const std::vector<placement::PlacementDevice>& devices) const;

  // Records an engine's measured RSS against `plan`'s CPU prediction for
  // the model's memory correction; blocking (writes a small file).
  Result<placement::MemoryCorrection> Learn(const models::ModelEntry& model,
                                            const placement::EnginePlan& plan,
                                            uint64_t measured) const;

 private:
  // What the vocoder of a speech-out model adds (engines::VocoderBytes),
  // its GGUF read once per file rather than on every plan.
  uint64_t VocoderBytes(const std::filesystem::path& vocoder) const;

  const PlannerOptions options_;
  mutable placement::MemoryCorrections corrections_;
  mutable FileMemo<FileIdentity, uint64_t> vocoder_bytes_{64};  // by vocoder file
};

// The CPU bytes the ledger itself predicted in `plan`, without what learned
// corrections added: what a measurement is compared with.
uint64_t LedgerCpuBytes(const placement::EnginePlan& plan);

}  // namespace zest::scheduler
