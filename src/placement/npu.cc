#include "placement/npu.h"

#include <algorithm>

#include "placement/memory_ledger.h"

namespace zest::placement {
namespace {

// What FastFlowLM is predicted to hold for `model` at `ctx` tokens: the
// GGUF's weights stand in for the NPU build's (both about 4 bits a weight
// for the tags in the catalog), one sequence's KV cache at 16 bits.
DeviceMemory NpuMemory(const models::ModelInfo& model, uint64_t ctx) {
  LoadShape shape;
  shape.ctx_per_slot = ctx;
  shape.parallel = 1;
  DeviceMemory m;
  m.weights = model.file_size;
  m.kv_cache = KvCacheBytes(model, shape);
  m.compute = ComputeBufferBytes(model, shape);
  m.overhead = kNpuRuntimeBytes;
  return m;
}

}  // namespace

NpuRequest NpuFromInventory(const hardware::Inventory& inventory,
                            const std::vector<hardware::RecipeVerdict>& verdicts) {
  NpuRequest npu;
  if (inventory.npus.empty()) return npu;
  npu.present = true;
  npu.description = inventory.npus.front().name;
  for (const hardware::RecipeVerdict& v : verdicts) {
    if (v.recipe != kFlmRecipe) continue;
    npu.usable = v.verdict == hardware::Verdict::kUsable;
    npu.reason = v.reason;
  }
  return npu;
}

bool IsNpuDevice(const std::string& device) { return device == "npu" || device == "NPU"; }

std::string LlamaServerOnlyOptions(const config::ModelSettings& o) {
  std::string out;
  auto add = [&](bool set, const char* name) {
    if (set) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(!o.device.empty() && !IsNpuDevice(o.device), "device");
  add(o.n_gpu_layers.has_value(), "n_gpu_layers");
  add(o.n_cpu_moe.has_value(), "n_cpu_moe");
  add(!o.tensor_split.empty(), "tensor_split");
  add(o.parallel.has_value(), "parallel");
  add(!o.kv_type.empty() || !o.cache_type_k.empty() || !o.cache_type_v.empty(), "KV cache type");
  add(o.flash_attention.has_value(), "flash_attention");
  add(o.batch.has_value() || o.ubatch.has_value(), "batch");
  add(o.no_mmap || o.mlock, "no_mmap/mlock");
  add(!o.extra_args.empty(), "extra_args");
  return out;
}

Result<std::optional<EnginePlan>> PlanOnNpu(const models::ModelInfo& model,
                                            const std::string& model_name,
                                            const PlacementDevice& cpu,
                                            const config::ModelSettings& o, const NpuRequest& npu,
                                            uint64_t default_ctx_per_slot, std::string* why_not) {
  why_not->clear();
  const bool asked = IsNpuDevice(o.device);
  // Not a candidate, and nothing worth saying: no NPU build, or no NPU.
  if (!asked && (npu.checkpoint.empty() || !npu.present)) return std::optional<EnginePlan>();
  // Each reason it cannot run there: an error when asked for, else a note.
  auto cannot = [&](Status error) -> Result<std::optional<EnginePlan>> {
    if (asked)
      return Status(error.code(), "'" + model_name + "' cannot run on the NPU: " + error.message());
    *why_not = "Not on the NPU: " + error.message() + ".";
    return std::optional<EnginePlan>();
  };
  if (npu.checkpoint.empty()) {
    return cannot(InvalidArgument(
        "it has no FastFlowLM build (set its `flm` option to a FastFlowLM model tag)"));
  }
  if (!npu.present) return cannot(InvalidArgument("this machine has no NPU"));
  if (!npu.usable) return cannot(Unavailable(npu.reason));
  if (std::string pinned = LlamaServerOnlyOptions(o); !pinned.empty()) {
    return cannot(InvalidArgument("its options set " + pinned + ", which only llama-server takes"));
  }
  if (!npu.held_by.empty() && npu.held_by != model_name) {
    return cannot(
        InsufficientMemory("it runs '" + npu.held_by + "' (FastFlowLM holds one model at a time)"));
  }
  const uint64_t trained = model.context_length > 0 ? model.context_length : (1u << 20);
  if (o.ctx_size && *o.ctx_size > trained) {
    return InvalidArgument("ctx_size " + std::to_string(*o.ctx_size) + " for '" + model_name +
                           "' is above its trained context of " + std::to_string(trained) +
                           " tokens");
  }
  uint64_t ctx = trained;
  std::string reason = "the largest that fits, up to the trained " + std::to_string(trained);
  if (o.ctx_size) {
    ctx = *o.ctx_size;
    reason = "as configured for this model";
  } else if (default_ctx_per_slot > 0) {
    ctx = std::min(default_ctx_per_slot, trained);
    reason = "the server default";
  }
  auto fits = [&](uint64_t c) { return NpuMemory(model, c).Total() <= cpu.free_bytes; };
  // Only an automatic context shrinks (by halves, not below FastFlowLM's floor).
  while (!o.ctx_size && default_ctx_per_slot == 0 && !fits(ctx) && ctx / 2 >= kFlmMinContext) {
    ctx /= 2;
  }
  const DeviceMemory need = NpuMemory(model, std::max(ctx, kFlmMinContext));
  if (need.Total() > cpu.free_bytes) {
    return cannot(InsufficientMemory("it needs " + FormatBytes(need.Total()) +
                                     " of system memory for a context of " + std::to_string(ctx) +
                                     " tokens, and " + FormatBytes(cpu.free_bytes) + " is free"));
  }
  EnginePlan plan;
  plan.recipe = kFlmRecipe;
  plan.flm_checkpoint = npu.checkpoint;
  plan.ctx_per_slot = ctx;
  plan.parallel = 1;
  plan.memory.push_back({kNpuDevice, need});
  plan.explanation = "on the NPU (" + npu.description + ") with FastFlowLM as '" + npu.checkpoint +
                     "': " + npu.reason + "; context " + std::to_string(ctx) +
                     " tokens, one request at a time (" + reason +
                     "). Predicted: " + FormatBytes(need.Total()) + " of system memory, " +
                     FormatBytes(cpu.free_bytes) +
                     " free (the NPU works in system RAM; weights estimated from the GGUF, " +
                     FormatBytes(need.weights) + ", KV cache " + FormatBytes(need.kv_cache) + ").";
  return std::optional<EnginePlan>(std::move(plan));
}

}  // namespace zest::placement
