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

struct NpuContext {
  uint64_t tokens = 0;
  std::string reason;  // for the explanation
};

// The context: the model's ctx_size, else the server default (capped at
// the trained length), else the largest that fits `free_bytes`, halving
// from the trained length down to FastFlowLM's floor. Only that last one
// ever shrinks; the caller checks the result fits.
Result<NpuContext> ChooseContext(const models::ModelInfo& model, const std::string& model_name,
                                 const config::ModelSettings& o, uint64_t default_ctx_per_slot,
                                 uint64_t free_bytes) {
  const uint64_t trained = model.context_length > 0 ? model.context_length : (1u << 20);
  if (o.ctx_size && *o.ctx_size > trained) {
    return InvalidArgument("ctx_size " + std::to_string(*o.ctx_size) + " for '" + model_name +
                           "' is above its trained context of " + std::to_string(trained) +
                           " tokens");
  }
  if (o.ctx_size) return NpuContext{*o.ctx_size, "as configured for this model"};
  if (default_ctx_per_slot > 0) {
    return NpuContext{std::min(default_ctx_per_slot, trained), "the server default"};
  }
  uint64_t ctx = trained;
  while (NpuMemory(model, ctx).Total() > free_bytes && ctx / 2 >= kFlmMinContext) ctx /= 2;
  return NpuContext{ctx, "the largest that fits, up to the trained " + std::to_string(trained)};
}

std::string Explain(const NpuRequest& npu, const NpuContext& context, const DeviceMemory& need,
                    uint64_t free_bytes) {
  return "on the NPU (" + npu.description + ") with FastFlowLM as '" + npu.checkpoint +
         "': " + npu.reason + "; context " + std::to_string(context.tokens) +
         " tokens, one request at a time (" + context.reason +
         "). Predicted: " + FormatBytes(need.Total()) + " of system memory, " +
         FormatBytes(free_bytes) +
         " free (the NPU works in system RAM; weights estimated from the GGUF, " +
         FormatBytes(need.weights) + ", KV cache " + FormatBytes(need.kv_cache) + ").";
}

}  // namespace

NpuRequest NpuFromInventory(const hardware::Inventory& inventory,
                            const std::vector<engines::RecipeVerdict>& verdicts) {
  NpuRequest npu;
  if (inventory.npus.empty()) return npu;
  npu.present = true;
  npu.description = inventory.npus.front().name;
  for (const engines::RecipeVerdict& v : verdicts) {
    if (v.recipe != kFlmRecipe) continue;
    npu.usable = v.verdict == engines::Verdict::kUsable;
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
  auto cannot = [&](const Status& error) -> Result<std::optional<EnginePlan>> {
    if (asked) {
      return Status(error.code(), "'" + model_name + "' cannot run on the NPU: " + error.message());
    }
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
  ZEST_ASSIGN_OR_RETURN(NpuContext context,
                        ChooseContext(model, model_name, o, default_ctx_per_slot, cpu.free_bytes));
  const uint64_t ctx = context.tokens;
  const DeviceMemory need = NpuMemory(model, std::max(ctx, kFlmMinContext));
  if (need.Total() > cpu.free_bytes) {
    return cannot(InsufficientMemory("it needs " + FormatBytes(need.Total()) +
                                     " of system memory for a context of " + std::to_string(ctx) +
                                     " tokens, and " + FormatBytes(cpu.free_bytes) + " is free"));
  }
  EnginePlan plan;
  plan.recipe = kFlmRecipe;
  plan.engine_checkpoint = npu.checkpoint;
  plan.ctx_per_slot = ctx;
  plan.parallel = 1;
  plan.memory.push_back({kNpuDevice, need});
  plan.explanation = Explain(npu, context, need, cpu.free_bytes);
  return std::optional<EnginePlan>(std::move(plan));
}

}  // namespace zest::placement
