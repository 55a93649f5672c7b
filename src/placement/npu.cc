#include "placement/npu.h"

#include <algorithm>

#include "placement/memory_ledger.h"

namespace zest::placement {
namespace {

// What the NPU engine is predicted to hold for `model` at `ctx` tokens: the
// GGUF's weights stand in for the NPU build's (both about 4 bits a weight
// for the builds in the catalog), one sequence's KV cache at 16 bits.
DeviceMemory NpuMemory(const models::ModelInfo& model, const NpuEngine& engine, uint64_t ctx) {
  LoadShape shape;
  shape.ctx_per_slot = ctx;
  shape.parallel = 1;
  DeviceMemory m;
  m.weights = model.file_size;
  m.kv_cache = KvCacheBytes(model, shape);
  m.compute = ComputeBufferBytes(model, shape);
  m.overhead = engine.runtime_bytes;
  return m;
}

// The `device` option's values that ask for the NPU.
bool AsksForNpu(const std::string& device) { return device == "npu" || device == "NPU"; }

struct NpuContext {
  uint64_t tokens = 0;
  std::string reason;  // for the explanation
};

// The context: the model's ctx_size, else the server default (capped at
// the trained length), else the largest that fits `free_bytes`, halving
// from the trained length down to the engine's floor. Only that last one
// ever shrinks; the caller checks the result fits.
Result<NpuContext> ChooseContext(const models::ModelInfo& model, const std::string& model_name,
                                 const config::ModelSettings& o, const NpuEngine& engine,
                                 uint64_t default_ctx_per_slot, uint64_t free_bytes) {
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
  const uint64_t floor = std::max<uint64_t>(engine.min_context, 1);
  while (NpuMemory(model, engine, ctx).Total() > free_bytes && ctx / 2 >= floor) {
    ctx /= 2;
  }
  return NpuContext{ctx, "the largest that fits, up to the trained " + std::to_string(trained)};
}

std::string Explain(const NpuRequest& npu, const NpuContext& context, const DeviceMemory& need,
                    uint64_t free_bytes) {
  return "on the NPU (" + npu.description + ") with " + npu.engine.name + " as '" + npu.checkpoint +
         "': " + npu.reason + "; context " + std::to_string(context.tokens) +
         " tokens, one request at a time (" + context.reason +
         "). Predicted: " + FormatBytes(need.Total()) + " of system memory, " +
         FormatBytes(free_bytes) +
         " free (the NPU works in system RAM; weights estimated from the GGUF, " +
         FormatBytes(need.weights) + ", KV cache " + FormatBytes(need.kv_cache) + ").";
}

}  // namespace

Result<std::optional<EnginePlan>> PlanOnNpu(const models::ModelInfo& model,
                                            const std::string& model_name,
                                            const PlacementDevice& cpu,
                                            const config::ModelSettings& o, const NpuRequest& npu,
                                            uint64_t default_ctx_per_slot, std::string* why_not) {
  why_not->clear();
  const bool asked = AsksForNpu(o.device);
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
  const NpuEngine& engine = npu.engine;
  if (npu.checkpoint.empty()) {
    const std::string hint = engine.build_hint.empty() ? "" : " " + engine.build_hint;
    return cannot(InvalidArgument("it has no " + engine.name + " build" + hint));
  }
  if (!npu.present) return cannot(InvalidArgument("this machine has no NPU"));
  if (!npu.usable) return cannot(Unavailable(npu.reason));
  if (!o.device.empty() && !asked) {
    return cannot(InvalidArgument("its device option names " + o.device));
  }
  if (!npu.refused_options.empty()) {
    return cannot(InvalidArgument("its options set " + npu.refused_options));
  }
  if (engine.one_model_at_a_time && !npu.held_by.empty() && npu.held_by != model_name) {
    return cannot(InsufficientMemory("it runs '" + npu.held_by + "' (" + engine.name +
                                     " holds one model at a time)"));
  }
  ZEST_ASSIGN_OR_RETURN(NpuContext context, ChooseContext(model, model_name, o, engine,
                                                          default_ctx_per_slot, cpu.free_bytes));
  const uint64_t ctx = context.tokens;
  const DeviceMemory need = NpuMemory(model, engine, std::max(ctx, engine.min_context));
  if (need.Total() > cpu.free_bytes) {
    return cannot(InsufficientMemory("it needs " + FormatBytes(need.Total()) +
                                     " of system memory for a context of " + std::to_string(ctx) +
                                     " tokens, and " + FormatBytes(cpu.free_bytes) + " is free"));
  }
  EnginePlan plan;
  plan.on_npu = true;
  plan.engine_checkpoint = npu.checkpoint;
  plan.ctx_per_slot = ctx;
  plan.parallel = 1;
  plan.memory.push_back({kNpuDevice, need});
  plan.explanation = Explain(npu, context, need, cpu.free_bytes);
  return std::optional<EnginePlan>(std::move(plan));
}

}  // namespace zest::placement
