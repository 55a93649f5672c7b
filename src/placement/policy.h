// Placement policy: where and how to run one model, given its memory shape,
// the devices with the memory still free on them, and the user's options.
// Pure function; table-driven tests in policy_test.cc.
//
// Order of preference (the first that fits wins):
//   0. the NPU, for a model with an NPU build (npu.h);
//   1. every layer on the fastest GPU that holds it (discrete before
//      integrated; a software renderer such as llvmpipe only when named);
//   2. every layer split across all GPUs, in proportion to their free memory;
//   3. MoE: every layer on the fastest GPU with the experts of the first N
//      blocks on the CPU (smallest N that fits);
//   4. the most layers that fit on the fastest GPU, the rest on the CPU;
//   5. the CPU alone;
//   6. with ggml RPC workers (other machines, devices.h): the most layers
//      that fit on the CPU, the rest on this machine's GPUs and the workers,
//      split in proportion to their free memory. A worker is used otherwise
//      only when named (device = "rpc:HOST:PORT").
// Context: the requested one; else the largest that fits, up to the
// model's trained length. Never less than asked for: when the requested
// context does not fit anywhere, the answer is an error (kInsufficientMemory)
// that says what was needed and what each device has.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "core/result.h"
#include "models/gguf_reader.h"
#include "placement/devices.h"
#include "placement/engine_plan.h"
#include "placement/memory_correction.h"
#include "placement/npu.h"

namespace zest::placement {

struct PlacementRequest {
  std::string model_name;         // for messages
  config::ModelSettings options;  // the user's per-model options
  // Server-wide defaults used when `options` leaves a field unset:
  // default_ctx_per_slot 0 = the largest that fits; a default above the
  // model's trained length is capped (an explicit ctx_size is not: error).
  uint64_t default_ctx_per_slot = 4096;
  int default_parallel = 4;
  uint64_t mmproj_bytes = 0;
  // Speculative decoding (the scheduler resolved the draft model and checked
  // its tokenizer): copied into the plan, the draft placed on the model's
  // main device; `draft` is the draft model's shape for the ledger.
  SpeculativePlan speculative;
  std::shared_ptr<const models::ModelInfo> draft;
  // Learned from earlier loads of this model file: the CPU prediction of a
  // layout is scaled by its scope's Factor() (the extra shows as
  // DeviceMemory::learned).
  LearnedCorrections learned;
  // The NPU and the model's NPU build (npu.h): tried before any GPU.
  NpuRequest npu;
};

// kInvalidArgument for bad options (unknown device, reserved extra args,
// ctx_size above the trained length, n_gpu_layers above the block count + 1);
// kInsufficientMemory when nothing fits. `devices[0]` must be the CPU.
Result<EnginePlan> PlanPlacement(const models::ModelInfo& model,
                                 const std::vector<PlacementDevice>& devices,
                                 const PlacementRequest& request);

}  // namespace zest::placement
