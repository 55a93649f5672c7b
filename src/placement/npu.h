// NPU placement: an engine for the NPU runs a model's NPU build, a
// checkpoint of its own format named by a tag ("llama3.2:1b"). A model has
// an NPU build when its catalog entry or its options name one. Placement
// knows no such engine: NpuRequest carries what the engine needs and
// allows, as engines/ describes it (engines/npu_engine.h). Pure function;
// table-driven tests in npu_test.cc.
//
// The NPU comes first for such a model when
//   - the NPU engine is usable here (present and installed, as the
//     engine's recipe verdict says),
//   - no other model holds it, when the engine runs one model at a time,
//   - none of the model's options is one the NPU engine cannot honour,
//   - its memory fits: the NPU works in system RAM, so the prediction is
//     taken from the CPU's free memory.
// Otherwise the model goes to the CPU and GPUs as usual and the explanation
// says why not the NPU. `device = "npu"` asks for the NPU: then each of
// these is an error instead (kInsufficientMemory when it is held or too
// small, so the pool may evict the idle holder and try again).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

// The device name an NPU plan reports (EnginePlan::memory, PrimaryDevice).
inline constexpr const char* kNpuDevice = "NPU";

// The engine that runs NPU builds, as engines/ describes it.
struct NpuEngine {
  std::string name;        // for explanations and errors: "it has no NAME build"
  std::string build_hint;  // how a model gets a build: "(set its `x` option to ...)"
  // Its runtime beside the model: kernels, buffers. Counted as overhead.
  uint64_t runtime_bytes = 0;
  // It raises a smaller context to this itself: never planned below.
  uint64_t min_context = 0;
  bool one_model_at_a_time = false;  // then `held_by` below keeps others off
};

struct NpuRequest {
  bool present = false;     // the machine has an NPU the engine could use
  bool usable = false;      // the engine's recipe verdict is "usable"
  std::string reason;       // that verdict's reason
  std::string description;  // "AMD XDNA2 NPU (Strix/Krackan)"
  NpuEngine engine;
  std::string checkpoint;  // the model's NPU build; "" = it has none
  std::string held_by;     // the model the NPU runs now; "" = free
  // The model's options the engine cannot honour, and why, as the engine
  // words it ("n_gpu_layers, which only ... takes"); "" = none.
  std::string refused_options;
};

// A plan on the NPU when the model should run there; nullopt when it goes
// to the CPU and GPUs, with `*why_not` saying why ("" when the model has no
// NPU build or the machine no NPU). `cpu` is the CPU placement device (its
// free memory is what the NPU can use); `default_ctx_per_slot` the server's
// default context (0 = the largest that fits).
Result<std::optional<EnginePlan>> PlanOnNpu(const models::ModelInfo& model,
                                            const std::string& model_name,
                                            const PlacementDevice& cpu,
                                            const config::ModelSettings& options,
                                            const NpuRequest& npu, uint64_t default_ctx_per_slot,
                                            std::string* why_not);

}  // namespace zest::placement
