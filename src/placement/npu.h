// NPU placement: FastFlowLM (`flm serve TAG`) runs a model's NPU build, a
// checkpoint of its own format named by a tag ("llama3.2:1b"), on an AMD
// XDNA2 NPU. A model has an NPU build when its catalog entry or its options
// name one (`flm`). Pure function; table-driven tests in npu_test.cc.
//
// The NPU comes first for such a model when
//   - the flm recipe is usable here (hardware/verdicts.h: an XDNA2 NPU with
//     new enough firmware, and flm installed),
//   - no other model holds it (FastFlowLM runs one model at a time),
//   - the user pinned no llama-server option (device, n_gpu_layers, ...),
//   - its memory fits: the NPU works in system RAM, so the prediction is
//     taken from the CPU's free memory.
// Otherwise the model goes to llama-server as usual and the explanation says
// why not the NPU. `device = "npu"` asks for the NPU: then each of these is
// an error instead (kInsufficientMemory when it is held or too small, so the
// pool may evict the idle holder and try again).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"
#include "engines/recipe_verdicts.h"
#include "hardware/inventory.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

// The device name an NPU plan reports (EnginePlan::memory, PrimaryDevice).
inline constexpr const char* kNpuDevice = "NPU";

// XRT, the NPU kernels (xclbins) and FastFlowLM's own buffers. Not measured
// here (this machine has no NPU): a round figure to replace with a measured
// one, as kEngineOverheadBytes was.
inline constexpr uint64_t kNpuRuntimeBytes = 512ull << 20;

// Below this FastFlowLM raises the context itself (its release notes).
inline constexpr uint64_t kFlmMinContext = 512;

struct NpuRequest {
  bool present = false;     // the machine has an NPU a recipe could use
  bool usable = false;      // the flm recipe's verdict is "usable"
  std::string reason;       // that verdict's reason
  std::string description;  // "AMD XDNA2 NPU (Strix/Krackan)"
  std::string checkpoint;   // the model's FastFlowLM tag; "" = it has no NPU build
  std::string held_by;      // the model the NPU runs now; "" = free
};

// The llama-server options `options` sets that pin a model to llama-server
// ("n_gpu_layers, extra_args"); "" when none.
std::string LlamaServerOnlyOptions(const config::ModelSettings& options);

// A plan on the NPU when the model should run there; nullopt when it goes
// to llama-server, with `*why_not` saying why ("" when the model has no NPU
// build or the machine no NPU). `cpu` is the CPU placement device (its free
// memory is what the NPU can use); `default_ctx_per_slot` the server's
// default context (0 = the largest that fits).
Result<std::optional<EnginePlan>> PlanOnNpu(const models::ModelInfo& model,
                                            const std::string& model_name,
                                            const PlacementDevice& cpu,
                                            const config::ModelSettings& options,
                                            const NpuRequest& npu, uint64_t default_ctx_per_slot,
                                            std::string* why_not);

// The machine's side of an NpuRequest (present, usable, reason,
// description) from the inventory and the recipe verdicts; the pool adds
// the model's checkpoint and the NPU's holder.
NpuRequest NpuFromInventory(const hardware::Inventory& inventory,
                            const std::vector<engines::RecipeVerdict>& verdicts);

// Whether `device` (an option value) names the NPU: "npu" or "NPU".
bool IsNpuDevice(const std::string& device);

}  // namespace zest::placement
