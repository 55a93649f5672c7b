// Whether this machine can run a model at all (`zest list`'s FIT column and
// the `fit` field of GET /api/v1/models): the placement policy's answer on
// the discovered devices with nothing else loaded, in one word. Pure.
//
//   yes      every layer on one GPU, or in RAM on a machine without a GPU
//            zest would choose
//   partial  split between GPU(s) and the CPU (or MoE experts on the CPU)
//   cpu      on the CPU alone although a GPU is there (too big for it)
//   no       not even on the CPU: needs more than the memory there is
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"

namespace zest::placement {

struct ModelFit {
  std::string verdict;           // "yes", "partial", "cpu", "npu" (its NPU build), "no"
  uint64_t needed_bytes = 0;     // predicted for the model in all (the smallest way, for "no")
  uint64_t available_bytes = 0;  // RAM plus the memory of GPUs zest would use
  std::string reason;            // the plan's explanation or the refusal's message
  uint64_t ctx_per_slot = 0;     // the context one request gets in that plan (0: no plan)
};

// The memory zest may use for a model: system RAM plus the GPUs it would
// choose by itself (not software renderers), unified ones counted once.
uint64_t AvailableBytes(const std::vector<PlacementDevice>& devices);

// The verdict for `plan` (PlanPlacement on `devices`). For a plan that does
// not fit, `needed_bytes` is `cpu_only_bytes`: the model's prediction on the
// CPU alone at the smallest context tried.
ModelFit FitOfPlan(const Result<EnginePlan>& plan, const models::ModelInfo& model,
                   const std::vector<PlacementDevice>& devices, uint64_t cpu_only_bytes);

// The verdict for a model known only by its file size (a catalog entry not
// yet downloaded): weights of that size plus the engine's overhead and a
// small KV cache, compared with the largest GPU, then GPUs + RAM, then RAM.
ModelFit FitOfSize(uint64_t file_bytes, const std::vector<PlacementDevice>& devices);

}  // namespace zest::placement
