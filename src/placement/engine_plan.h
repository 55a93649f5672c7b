// EnginePlan: how one model instance is to be started (devices, layer split,
// context, KV cache, loading mode) and what it is predicted to take on each
// device, with the reasons in words. Produced by PlanPlacement (policy.h)
// and the CPU and NPU planners, engine-neutral: which engine runs it, and
// with what command line, is the engine adapters' (engines/), which the
// scheduler hands the plan's facts. Shown by `GET /api/v1/health` and
// `zest ps -v`. Plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/memory_correction.h"
#include "placement/memory_ledger.h"

namespace zest::placement {

struct DeviceUse {
  std::string device;  // "CPU", "Vulkan0"
  DeviceMemory memory;
};

// Speculative decoding as planned: how the engine drafts tokens for the
// model to check (docs/configuration.md, `speculative`), and where a draft
// model runs: the target's main device (memory_ledger.h counts it there).
enum class SpeculativeKind { kNone, kDraft, kNgram, kMtp };
const char* SpeculativeKindName(SpeculativeKind kind);  // "none", "draft", "ngram", "mtp"

// What a draft model under `speculative = "auto"` was measured to do before
// zest switched it off (scheduler/draft_acceptance.h): too few of its
// drafted tokens accepted to pay for drafting them.
struct DraftSwitchOff {
  std::string draft_model;
  double acceptance = 0;  // accepted / drafted
  uint64_t drafted = 0;   // drafted tokens measured
};

struct SpeculativePlan {
  SpeculativeKind kind = SpeculativeKind::kNone;
  // Set (with kind kNone) when the model's `auto` draft was switched off:
  // it loads without it until its options are given again.
  std::optional<DraftSwitchOff> switched_off;
  std::string draft_model;        // zest's name for the draft (kDraft)
  std::string draft_file;         // its GGUF file
  std::string draft_device;       // the GPU it runs on; "" = the CPU
  std::optional<int> max_tokens;  // drafted per step; unset = the engine's default
  std::optional<int> min_tokens;
  // Chosen by `speculative = "auto"` (or unset), not asked for by name: a
  // draft that does not pay may be switched off (scheduler/draft_acceptance.h).
  bool chosen_by_auto = false;
};

struct EnginePlan {
  // On the NPU, running the model's NPU build (npu.h), named by
  // engine_checkpoint; otherwise the model file on the CPU and gpu_devices.
  bool on_npu = false;
  std::string engine_checkpoint;         // the engine's own name for the model (an NPU build's tag)
  std::vector<std::string> gpu_devices;  // --device; empty = CPU only
  // The ggml RPC workers among gpu_devices ("rpc:HOST:PORT" there), their
  // endpoints in the same order: the engine's --rpc.
  std::vector<std::string> rpc_workers;
  // A GPU of the plan is a software renderer (llvmpipe): its "GPU" layers
  // run on CPU threads too (LP_NUM_THREADS), so it shares the CPU budget.
  bool software_gpu = false;
  int n_gpu_layers = 0;              // -ngl (block_count + 1 = everything)
  std::vector<double> tensor_split;  // --tensor-split, one weight per GPU device
  int n_cpu_moe = 0;                 // --n-cpu-moe
  // A vision projector stays on the CPU though the model uses GPUs
  // (--no-mmproj-offload; memory_ledger.h ProjectorOnCpu says when).
  bool mmproj_on_cpu = false;
  uint64_t ctx_per_slot = 0;  // the engine gets ctx_per_slot × parallel
  int parallel = 1;
  KvType cache_type_k = KvType::kF16;   // -ctk
  KvType cache_type_v = KvType::kF16;   // -ctv
  std::optional<bool> flash_attention;  // unset: the engine's auto
  bool no_mmap = false;
  bool mlock = false;
  std::optional<uint32_t> batch;
  uint32_t ubatch = 512;
  // --cache-ram: MiB of idle conversations the engine keeps in host RAM
  // (counted in the CPU's prompt_cache); unset for engines without one.
  std::optional<uint64_t> cache_ram_mib;
  std::vector<std::string> extra_args;
  SpeculativePlan speculative;
  // -t: threads of an engine that computes on the CPU, from the pool's CPU
  // thread budget (cpu_threads.h) or the user's engine.threads; 0 = the
  // engine's default.
  int cpu_threads = 0;

  std::vector<DeviceUse> memory;  // predicted use per device, CPU first
  std::string explanation;        // one paragraph: what was chosen and why
  // The kind of layout (CPU only, or with GPUs: memory_correction.h) whose
  // learned correction applies, chosen by the policy with the layout; and
  // what earlier loads of this model file taught for it (none: nothing
  // yet), whose Factor() is in the CPU's `learned` bytes of `memory`.
  CorrectionScope correction_scope = CorrectionScope::kCpuOnly;
  std::optional<MemoryCorrection> memory_correction;

  uint64_t TotalBytes() const;
  // Bytes on `device`, 0 when the plan does not use it.
  uint64_t BytesOn(const std::string& device) const;
};

}  // namespace zest::placement
