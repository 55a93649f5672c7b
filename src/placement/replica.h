// Replica placement: where a model's next instance goes when it already runs
// somewhere. A replica only adds throughput when it computes on hardware the
// model's other instances do not already keep busy, so it must go on a
// device none of them uses (a second GPU, the CPU next to a GPU instance, a
// GPU next to a CPU one). Pure functions; tests in replica_test.cc.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "placement/policy.h"

namespace zest::placement {

// The device an instance computes on: its first GPU, or "CPU" when it has
// none (a partial offload counts as its GPU's).
std::string PrimaryDevice(const EnginePlan& plan);

// A plan for another instance of `request`'s model on a device not named in
// `used` (PrimaryDevice names). Candidates in order: the GPUs the engine
// sees, fastest first (a software renderer included: a replica is asked
// for, and llvmpipe is still a second device), then the CPU; the first whose
// plan computes on that device wins. kInsufficientMemory when no unused
// device has room (or none is left), kInvalidArgument for bad options.
Result<EnginePlan> PlanReplica(const models::ModelInfo& model,
                               const std::vector<PlacementDevice>& devices,
                               const PlacementRequest& request,
                               const std::vector<std::string>& used);

}  // namespace zest::placement
