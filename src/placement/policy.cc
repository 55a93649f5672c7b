#include "placement/policy.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <optional>

namespace zest::placement {
namespace {

// Auto context never goes below this (or the trained length if shorter):
// a model squeezed to less is better placed elsewhere, or refused.
constexpr uint64_t kMinAutoContext = 4096;
// Auto context searches in steps of this many cells.
constexpr uint64_t kContextStep = 256;

// A layout over chosen GPUs (indices into the device list).
struct Candidate {
  Layout layout;
  std::vector<std::size_t> gpus;
  std::string how;  // "all 33 layers on Vulkan0"
};

// Everything fixed for one request except context and layout.
struct Problem {
  const models::ModelInfo& model;
  const std::vector<PlacementDevice>& devices;
  LoadShape shape;
  LearnedCorrections learned;
  SpeculativePlan speculative;
};

// The kind of layout candidate `c` is, for learned corrections.
CorrectionScope ScopeOf(const Candidate& c) {
  return c.gpus.empty() ? CorrectionScope::kCpuOnly : CorrectionScope::kWithGpus;
}

// The learned correction that applies to candidate `c`'s layout.
const std::optional<MemoryCorrection>& CorrectionFor(const Problem& p, const Candidate& c) {
  return p.learned.For(ScopeOf(c));
}

std::vector<DeviceMemory> Predict(const Problem& p, const Candidate& c, uint64_t ctx) {
  LoadShape shape = p.shape;
  shape.ctx_per_slot = ctx;
  std::vector<DeviceMemory> use = PredictMemory(p.model, shape, c.layout);
  // Admission, the plan and the 507 message all see the corrected figure.
  if (const auto& learned = CorrectionFor(p, c)) {
    use[0].learned =
        static_cast<uint64_t>(static_cast<double>(use[0].AtLoad()) * (learned->Factor() - 1.0));
  }
  return use;
}

// The system RAM candidate `c` takes (predicted as `use`): the CPU's share
// and what unified-memory GPUs take from it.
uint64_t RamUse(const Problem& p, const Candidate& c, const std::vector<DeviceMemory>& use) {
  uint64_t ram = use[0].Total();
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    if (p.devices[c.gpus[i]].unified) ram += use[i + 1].Total();
  }
  return ram;
}

// The system RAM side of Fits alone.
bool CpuFits(const Problem& p, const Candidate& c, uint64_t ctx) {
  return RamUse(p, c, Predict(p, c, ctx)) <= p.devices[0].free_bytes;
}

// Each used device within its free memory, and the system RAM also covering
// what unified-memory GPUs take from it.
bool Fits(const Problem& p, const Candidate& c, uint64_t ctx) {
  std::vector<DeviceMemory> use = Predict(p, c, ctx);
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    if (use[i + 1].Total() > p.devices[c.gpus[i]].free_bytes) return false;
  }
  return RamUse(p, c, use) <= p.devices[0].free_bytes;
}

// The largest context in [low, high] at which `fits` holds, if any (fit is
// monotonic in the context).
std::optional<uint64_t> LargestContext(uint64_t low, uint64_t high,
                                       const std::function<bool(uint64_t)>& fits) {
  if (fits(high)) return high;
  if (!fits(low)) return std::nullopt;
  uint64_t good = low, bad = high;  // fits(good), !fits(bad)
  while (bad - good > kContextStep) {
    uint64_t mid = good + (bad - good) / 2 / kContextStep * kContextStep;
    if (mid == good) mid = good + kContextStep;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

std::string FormatWeight(double w) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", w);
  return text;
}

std::string Layers(int n) { return std::to_string(n) + (n == 1 ? " layer" : " layers"); }

Candidate OnGpus(const Problem& p, std::vector<std::size_t> gpus, int gpu_layers, int cpu_moe) {
  Candidate c;
  c.gpus = std::move(gpus);
  c.layout.gpu_count = static_cast<int>(c.gpus.size());
  c.layout.gpu_layers = gpu_layers;
  c.layout.cpu_moe_layers = cpu_moe;
  if (c.gpus.size() > 1) {
    for (std::size_t g : c.gpus) {
      c.layout.split.push_back(static_cast<double>(p.devices[g].free_bytes >> 20));
    }
  }
  std::string names;
  for (std::size_t g : c.gpus) names += (names.empty() ? "" : " + ") + p.devices[g].name;
  const int all = static_cast<int>(p.model.block_count) + 1;
  c.how = gpu_layers >= all ? "all " + Layers(all) + " on " + names
                            : Layers(gpu_layers) + " of " + std::to_string(all) + " on " + names +
                                  ", the rest on the CPU";
  if (cpu_moe > 0) c.how += ", experts of the first " + Layers(cpu_moe) + " on the CPU";
  return c;
}

// The user's tensor_split over `gpus`: its weights follow the engine's
// device order (the order `zest devices` lists them in), not zest's speed
// order, so a user can read the config against that list.
Candidate UserSplit(const Problem& p, std::vector<std::size_t> gpus, int gpu_layers, int cpu_moe,
                    const std::vector<double>& split) {
  std::sort(gpus.begin(), gpus.end());
  Candidate c = OnGpus(p, gpus, gpu_layers, cpu_moe);
  c.layout.split = split;
  std::string weights;
  for (double w : split) weights += (weights.empty() ? "" : ":") + FormatWeight(w);
  c.how += " (split " + weights + " as configured)";
  return c;
}

Candidate CpuOnly() {
  Candidate c;
  c.how = "all layers on the CPU";
  return c;
}

// The smallest value in [low, high] where `fits` holds, given that it holds
// for every value above one that does (more experts or fewer layers on the
// CPU only ever free GPU memory).
std::optional<int> SmallestFitting(int low, int high, const std::function<bool(int)>& fits) {
  if (!fits(high)) return std::nullopt;
  while (low < high) {
    const int mid = low + (high - low) / 2;
    if (fits(mid)) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return high;
}

// A way to place the model: for a context, the candidate it would use, if
// any fits.
using Strategy = std::function<std::optional<Candidate>(uint64_t ctx)>;

std::vector<Strategy> Strategies(const Problem& p, const std::vector<std::size_t>& gpus,
                                 const std::vector<std::size_t>& workers,
                                 const config::ModelSettings& o) {
  std::vector<Strategy> out;
  const int all = static_cast<int>(p.model.block_count) + 1;
  const std::size_t best = gpus.empty() ? 0 : gpus[0];
  auto fitting = [&p](Candidate c, uint64_t ctx) -> std::optional<Candidate> {
    if (Fits(p, c, ctx)) return c;
    return std::nullopt;
  };
  if (o.n_gpu_layers || o.n_cpu_moe || !o.tensor_split.empty()) {  // the user chose: one layout
    const int ngl = std::min(o.n_gpu_layers.value_or(all), all);
    const int moe = o.n_cpu_moe.value_or(0);
    Candidate c = CpuOnly();
    if (!gpus.empty() && ngl > 0) {
      c = o.tensor_split.empty() ? OnGpus(p, {best}, ngl, moe)
                                 : UserSplit(p, gpus, ngl, moe, o.tensor_split);
    }
    out.push_back([fitting, c](uint64_t ctx) { return fitting(c, ctx); });
    return out;
  }
  for (std::size_t g : gpus) {
    out.push_back([=, &p](uint64_t ctx) { return fitting(OnGpus(p, {g}, all, 0), ctx); });
  }
  if (gpus.size() > 1) {
    out.push_back([=, &p](uint64_t ctx) { return fitting(OnGpus(p, gpus, all, 0), ctx); });
  }
  if (!gpus.empty() && p.model.expert_count > 0) {
    out.push_back([=, &p](uint64_t ctx) -> std::optional<Candidate> {
      auto m = SmallestFitting(1, all - 1,
                               [&](int n) { return Fits(p, OnGpus(p, {best}, all, n), ctx); });
      if (!m) return std::nullopt;
      return OnGpus(p, {best}, all, *m);
    });
  }
  if (!gpus.empty()) {
    out.push_back([=, &p](uint64_t ctx) -> std::optional<Candidate> {
      // Fewest layers on the CPU = most on the GPU.
      auto cpu_layers = SmallestFitting(
          1, all - 1, [&](int n) { return Fits(p, OnGpus(p, {best}, all - n, 0), ctx); });
      if (!cpu_layers) return std::nullopt;
      return OnGpus(p, {best}, all - *cpu_layers, 0);
    });
  }
  out.push_back([=](uint64_t ctx) { return fitting(CpuOnly(), ctx); });
  if (!workers.empty()) {
    // This machine's GPUs and the workers together, each by its free memory.
    std::vector<std::size_t> offload = gpus;
    offload.insert(offload.end(), workers.begin(), workers.end());
    out.push_back([=, &p](uint64_t ctx) -> std::optional<Candidate> {
      // Fewest layers offloaded that leave the CPU within its memory (fewer
      // only ever add to the CPU); then the devices must hold theirs.
      auto offloaded =
          SmallestFitting(1, all, [&](int n) { return CpuFits(p, OnGpus(p, offload, n, 0), ctx); });
      if (!offloaded) return std::nullopt;
      return fitting(OnGpus(p, offload, *offloaded, 0), ctx);
    });
  }
  return out;
}

// The GPUs to consider, fastest first: the one named, or every GPU of this
// machine that is not a software renderer.
Result<std::vector<std::size_t>> ChooseGpus(const std::vector<PlacementDevice>& devices,
                                            const std::string& wanted) {
  std::vector<std::size_t> gpus;
  if (wanted == "cpu" || wanted == "CPU") return gpus;
  std::string known = "cpu";
  for (std::size_t i = 1; i < devices.size(); ++i) {
    known += ", " + devices[i].name;
    const bool chosen = wanted.empty() ? devices[i].speed_rank > 0 && !devices[i].remote()
                                       : devices[i].name == wanted;
    if (chosen && !devices[i].reachable) return Unavailable(devices[i].description);
    if (chosen) gpus.push_back(i);
  }
  if (!wanted.empty() && gpus.empty()) {
    return InvalidArgument("device '" + wanted + "' is not one the engine sees (" + known + ")");
  }
  std::stable_sort(gpus.begin(), gpus.end(), [&](std::size_t a, std::size_t b) {
    if (devices[a].speed_rank != devices[b].speed_rank) {
      return devices[a].speed_rank > devices[b].speed_rank;
    }
    return devices[a].free_bytes > devices[b].free_bytes;
  });
  return gpus;
}

// The K and V cache types of a request: each its own option, else kv_type,
// else f16.
struct KvTypes {
  KvType k = KvType::kF16;
  KvType v = KvType::kF16;
};

// The option that set one cache's type, for messages: "cache_type_v" or
// "kv_type" (the shorthand for both); "" when neither did.
std::string KvOption(const std::string& specific, const std::string& name,
                     const config::ModelSettings& o) {
  if (!specific.empty()) return name;
  return o.kv_type.empty() ? "" : "kv_type";
}

Result<KvTypes> ChooseKvTypes(const models::ModelInfo& model, const PlacementRequest& r) {
  const config::ModelSettings& o = r.options;
  KvTypes kv;
  const std::string k = o.cache_type_k.empty() ? o.kv_type : o.cache_type_k;
  const std::string v = o.cache_type_v.empty() ? o.kv_type : o.cache_type_v;
  if (!k.empty()) {
    ZEST_ASSIGN_OR_RETURN(kv.k, ParseKvType(k));
  }
  if (!v.empty()) {
    ZEST_ASSIGN_OR_RETURN(kv.v, ParseKvType(v));
  }
  // Quantized cache rows are whole 32-element blocks (llama-server cannot
  // create the context otherwise).
  const bool bad_k = kv.k != KvType::kF16 && model.key_length % 32 != 0;
  const bool bad_v = kv.v != KvType::kF16 && model.value_length % 32 != 0;
  if (bad_k || bad_v) {
    const std::string option = bad_k ? KvOption(o.cache_type_k, "cache_type_k", o)
                                     : KvOption(o.cache_type_v, "cache_type_v", o);
    return InvalidArgument(option + " " + KvTypeName(bad_k ? kv.k : kv.v) + " for '" +
                           r.model_name + "' needs head sizes that are multiples of 32 (it has " +
                           std::to_string(model.key_length) + " and " +
                           std::to_string(model.value_length) + ")");
  }
  // The engine refuses a quantized V cache without flash attention (build
  // 11669 with -fa off: "quantized V cache requires flash_attn to be
  // enabled", and it exits): say so here, in the API's own error, rather
  // than fail the load with the engine's log. Unset flash_attention is the
  // engine's auto, which turns it on wherever the device supports it. A
  // quantized K cache alone runs either way.
  if (kv.v != KvType::kF16 && o.flash_attention == false) {
    return InvalidArgument(KvOption(o.cache_type_v, "cache_type_v", o) + " " + KvTypeName(kv.v) +
                           " for '" + r.model_name +
                           "' needs flash attention (the engine quantizes the V cache only with "
                           "it), but flash_attention is false");
  }
  return kv;
}

// "q8_0", or "K q8_0, V q4_0" when the two differ.
std::string KvCacheName(const EnginePlan& plan) {
  if (plan.cache_type_k == plan.cache_type_v) return KvTypeName(plan.cache_type_k);
  return std::string("K ") + KvTypeName(plan.cache_type_k) + ", V " + KvTypeName(plan.cache_type_v);
}

// A user's tensor_split has one weight per GPU the model is placed on: the
// one named by `device`, else every GPU zest would use.
Status CheckTensorSplit(const config::ModelSettings& o, const std::vector<std::size_t>& gpus,
                        const std::vector<PlacementDevice>& devices, const std::string& model) {
  if (o.tensor_split.empty() || o.tensor_split.size() == gpus.size()) return Status::Ok();
  if (o.n_gpu_layers == 0) return Status::Ok();  // nothing offloaded, nothing to split
  std::vector<std::size_t> ordered = gpus;
  std::sort(ordered.begin(), ordered.end());
  std::string names;
  for (std::size_t g : ordered) names += (names.empty() ? "" : ", ") + devices[g].name;
  std::string where = "no GPU";
  if (gpus.empty() && !o.device.empty()) where += " (device = " + o.device + ")";
  if (!gpus.empty()) {
    where = std::to_string(gpus.size()) + (gpus.size() == 1 ? " GPU (" : " GPUs (") + names + ")";
  }
  const std::size_t n = o.tensor_split.size();
  return InvalidArgument("tensor_split has " + std::to_string(n) +
                         (n == 1 ? " weight" : " weights") + " but '" + model + "' is placed on " +
                         where + ": give one weight per GPU, in that order");
}

std::string Breakdown(const DeviceMemory& m) {
  return "weights " + FormatBytes(m.weights) + ", KV cache " + FormatBytes(m.kv_cache) +
         ", compute " + FormatBytes(m.compute) + ", engine " + FormatBytes(m.overhead) +
         (m.prompt_cache > 0 ? ", prompt cache " + FormatBytes(m.prompt_cache) : "") +
         (m.learned > 0 ? ", learned from past loads " + FormatBytes(m.learned) : "") +
         (m.draft > 0 ? ", draft model " + FormatBytes(m.draft) : "");
}

// What was needed and what each device has, for the kInsufficientMemory error.
Status DoesNotFit(const Problem& p, const std::string& name, uint64_t ctx, int parallel,
                  const std::vector<std::size_t>& gpus) {
  DeviceMemory need;
  for (const DeviceMemory& d : Predict(p, CpuOnly(), ctx)) need = d;
  std::string message = "model '" + name + "' does not fit in the memory left: it needs " +
                        FormatBytes(need.Total()) + " (" + Breakdown(need) + ") for a context of " +
                        std::to_string(ctx) + " tokens × " + std::to_string(parallel) +
                        " slots; available: CPU " + FormatBytes(p.devices[0].free_bytes) +
                        " free of " + FormatBytes(p.devices[0].total_bytes);
  for (std::size_t g : gpus) {
    const PlacementDevice& d = p.devices[g];
    message += ", " + d.name + " (" + d.description + ") " + FormatBytes(d.free_bytes) +
               " free of " + FormatBytes(d.total_bytes) +
               (d.unified ? ", shared with the CPU" : "");
  }
  for (const PlacementDevice& d : p.devices) {
    if (!d.remote() || std::find(gpus.begin(), gpus.end(), &d - p.devices.data()) != gpus.end())
      continue;
    if (!d.reachable) {
      message += "; " + d.description;
    } else if (d.free_bytes == 0) {  // eviction.h: one engine at a time
      message += ", " + d.name + " (RPC worker) in use by another model";
    } else {
      message += ", " + d.name + " (RPC worker) " + FormatBytes(d.free_bytes) + " free of " +
                 FormatBytes(d.total_bytes);
    }
  }
  return InsufficientMemory(message);
}

LoadShape ShapeFor(const config::ModelSettings& o, const PlacementRequest& r, KvTypes kv) {
  LoadShape shape;
  shape.parallel = o.parallel.value_or(r.default_parallel);
  shape.cache_type_k = kv.k;
  shape.cache_type_v = kv.v;
  shape.flash_attention = o.flash_attention.value_or(true);
  shape.ubatch = o.ubatch.value_or(512);
  shape.mmproj_bytes = r.mmproj_bytes;
  shape.mmap = !o.no_mmap;
  shape.prompt_cache_bytes = o.cache_ram.value_or(0) << 20;  // unset: sized once placed
  shape.draft = r.draft;
  return shape;
}

// The prompt cache zest gives an engine whose cache_ram is not set: four
// times its KV cache (room for four idle conversations a slot at full
// length, more when they are shorter: the agents and chats that take turns
// on a model outnumber its slots; as large as the KV cache held one
// conversation beside 2 slots, and 8 on 2 slots came back 0 times of 24,
// bench/RESULTS.md), at most a quarter of the RAM the plan leaves free, and
// never above the engine's own default; whole MiB, the engine's unit.
uint64_t DefaultPromptCache(const std::vector<DeviceMemory>& use, uint64_t ram_used,
                            uint64_t ram_free) {
  uint64_t kv = 0;
  for (const DeviceMemory& d : use) kv += d.kv_cache;
  const uint64_t room = ram_free > ram_used ? (ram_free - ram_used) / 4 : 0;
  return std::min({kv * kPromptCacheKvMultiple, room, kMaxPromptCacheBytes}) &
         ~((uint64_t{1} << 20) - 1);
}

EnginePlan MakePlan(const Problem& p, const Candidate& c, uint64_t ctx,
                    const config::ModelSettings& o) {
  EnginePlan plan;
  for (std::size_t g : c.gpus) {
    plan.gpu_devices.push_back(p.devices[g].name);
    plan.software_gpu = plan.software_gpu || p.devices[g].speed_rank == 0;
    if (p.devices[g].remote()) plan.rpc_workers.push_back(p.devices[g].rpc_endpoint);
  }
  plan.n_gpu_layers = c.gpus.empty() ? 0 : c.layout.gpu_layers;
  plan.tensor_split = c.layout.split;
  plan.n_cpu_moe = c.layout.cpu_moe_layers;
  plan.mmproj_on_cpu =
      p.shape.mmproj_bytes > 0 && !c.gpus.empty() && ProjectorOnCpu(p.model, c.layout);
  plan.ctx_per_slot = ctx;
  plan.parallel = p.shape.parallel;
  plan.cache_type_k = p.shape.cache_type_k;
  plan.cache_type_v = p.shape.cache_type_v;
  plan.flash_attention = o.flash_attention;
  plan.no_mmap = o.no_mmap;
  plan.mlock = o.mlock;
  plan.batch = o.batch;
  plan.ubatch = p.shape.ubatch;
  plan.extra_args = o.extra_args;
  plan.speculative = p.speculative;
  // Where the ledger counts it (MainGpu): no GPU that runs a block, the CPU.
  if (const int main = MainGpu(p.model, c.layout); p.shape.draft && main >= 0) {
    plan.speculative.draft_device = plan.gpu_devices[static_cast<std::size_t>(main)];
  }
  plan.correction_scope = ScopeOf(c);
  plan.memory_correction = CorrectionFor(p, c);
  std::vector<DeviceMemory> use = Predict(p, c, ctx);
  if (!o.cache_ram) {
    use[0].prompt_cache = DefaultPromptCache(use, RamUse(p, c, use), p.devices[0].free_bytes);
  }
  plan.cache_ram_mib = use[0].prompt_cache >> 20;
  // The ceiling had to fit (an engine alone may grow to it), but the cache
  // starts empty: the ledger holds what it holds as conversations come
  // (prompt_cache.h; Instance::PromptCacheReserved), not the ceiling.
  use[0].prompt_cache = 0;
  plan.memory.push_back({kCpuDevice, use[0]});
  for (std::size_t i = 0; i < c.gpus.size(); ++i) {
    plan.memory.push_back({p.devices[c.gpus[i]].name, use[i + 1]});
  }
  return plan;
}

std::string Explain(const Problem& p, const EnginePlan& plan, const Candidate& c,
                    const std::string& context_reason) {
  std::string text = c.how + "; context " + std::to_string(plan.ctx_per_slot) + " tokens × " +
                     std::to_string(plan.parallel) + " slots (" + context_reason + "), KV cache " +
                     KvCacheName(plan) + ". Predicted:";
  for (const DeviceUse& u : plan.memory) {
    const PlacementDevice* d = nullptr;
    for (const PlacementDevice& dev : p.devices) {
      if (dev.name == u.device) d = &dev;
    }
    text += " " + u.device + " " + FormatBytes(u.memory.Total()) + " of " +
            FormatBytes(d ? d->free_bytes : 0) + " free (" + Breakdown(u.memory) + ");";
  }
  text.back() = '.';
  if (plan.cache_ram_mib.value_or(0) > 0) {
    text += " Idle conversations in a prompt cache of up to " +
            FormatBytes(*plan.cache_ram_mib << 20) +
            " of RAM, held in the ledger as they come (one more than it holds).";
  }
  const SpeculativePlan& spec = plan.speculative;
  if (spec.kind == SpeculativeKind::kDraft) {
    text += " Speculative decoding with the draft model '" + spec.draft_model + "' on " +
            (spec.draft_device.empty() ? std::string("the CPU") : spec.draft_device) +
            " (its tokenizer checked).";
  } else if (spec.kind != SpeculativeKind::kNone) {
    text += std::string(" Speculative decoding: ") + SpeculativeKindName(spec.kind) + " drafting.";
  } else if (spec.switched_off) {
    char measured[96];
    std::snprintf(measured, sizeof measured, "%.2f of %llu drafted tokens accepted",
                  spec.switched_off->acceptance,
                  static_cast<unsigned long long>(spec.switched_off->drafted));
    text += " No speculative decoding: auto switched the draft model '" +
            spec.switched_off->draft_model + "' off (" + measured + ").";
  }
  return text;
}

}  // namespace

const char* SpeculativeKindName(SpeculativeKind kind) {
  switch (kind) {
    case SpeculativeKind::kDraft:
      return "draft";
    case SpeculativeKind::kNgram:
      return "ngram";
    case SpeculativeKind::kMtp:
      return "mtp";
    default:
      return "none";
  }
}

uint64_t EnginePlan::TotalBytes() const {
  uint64_t total = 0;
  for (const DeviceUse& u : memory) total += u.memory.Total();
  return total;
}

uint64_t EnginePlan::BytesOn(const std::string& device) const {
  for (const DeviceUse& u : memory) {
    if (u.device == device) return u.memory.Total();
  }
  return 0;
}

Result<EnginePlan> PlanPlacement(const models::ModelInfo& model,
                                 const std::vector<PlacementDevice>& devices,
                                 const PlacementRequest& request) {
  const config::ModelSettings& o = request.options;
  std::string npu_note;  // why not the NPU, for a model that could run there
  ZEST_ASSIGN_OR_RETURN(std::optional<EnginePlan> on_npu,
                        PlanOnNpu(model, request.model_name, devices[0], o, request.npu,
                                  request.default_ctx_per_slot, &npu_note));
  if (on_npu) return std::move(*on_npu);
  ZEST_ASSIGN_OR_RETURN(KvTypes kv, ChooseKvTypes(model, request));
  const uint64_t trained = model.context_length > 0 ? model.context_length : (1u << 20);
  if (o.ctx_size && *o.ctx_size > trained) {
    return InvalidArgument("ctx_size " + std::to_string(*o.ctx_size) + " for '" +
                           request.model_name + "' is above its trained context of " +
                           std::to_string(trained) + " tokens");
  }
  if (o.n_gpu_layers && static_cast<uint64_t>(*o.n_gpu_layers) > model.block_count + 1) {
    return InvalidArgument("n_gpu_layers " + std::to_string(*o.n_gpu_layers) + " for '" +
                           request.model_name + "' is above its " +
                           std::to_string(model.block_count + 1) + " layers");
  }
  ZEST_ASSIGN_OR_RETURN(std::vector<std::size_t> gpus, ChooseGpus(devices, o.device));
  ZEST_RETURN_IF_ERROR(CheckTensorSplit(o, gpus, devices, request.model_name));
  Problem p{model, devices, ShapeFor(o, request, kv), request.learned, request.speculative};
  p.shape.cpu_repack = devices[0].repacks_weights;
  p.shape.gpu_backend = std::any_of(devices.begin() + 1, devices.end(),
                                    [](const PlacementDevice& d) { return !d.remote(); });
  // Workers, the roomiest first, when no device is named (a layout the user
  // fixed is one strategy alone: Strategies leaves them out).
  std::vector<std::size_t> workers;
  for (std::size_t i = 1; i < devices.size() && o.device.empty(); ++i) {
    if (devices[i].remote() && devices[i].reachable && devices[i].free_bytes > 0)
      workers.push_back(i);
  }
  std::stable_sort(workers.begin(), workers.end(), [&](std::size_t a, std::size_t b) {
    return devices[a].free_bytes > devices[b].free_bytes;
  });

  // A fixed context: asked for, or the server default (capped at trained).
  std::optional<uint64_t> fixed = o.ctx_size;
  std::string reason = "as configured for this model";
  if (!fixed && request.default_ctx_per_slot > 0) {
    fixed = std::min(request.default_ctx_per_slot, trained);
    reason =
        "the server default" +
        std::string(fixed < request.default_ctx_per_slot ? ", capped at the trained length" : "");
  }
  const uint64_t low = std::min(kMinAutoContext, trained);
  for (const Strategy& strategy : Strategies(p, gpus, workers, o)) {
    std::optional<uint64_t> ctx = fixed;
    if (!fixed) {
      ctx = LargestContext(low, trained, [&](uint64_t c) { return strategy(c).has_value(); });
      reason = "the largest that fits, up to the trained " + std::to_string(trained);
    }
    if (!ctx) continue;
    std::optional<Candidate> chosen = strategy(*ctx);
    if (!chosen) continue;
    EnginePlan plan = MakePlan(p, *chosen, *ctx, o);
    plan.explanation = Explain(p, plan, *chosen, reason);
    if (!npu_note.empty()) plan.explanation += " " + npu_note;
    return plan;
  }
  return DoesNotFit(p, request.model_name, fixed.value_or(low), p.shape.parallel, gpus);
}

}  // namespace zest::placement
