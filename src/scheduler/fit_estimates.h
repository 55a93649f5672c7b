// FitEstimates: whether this machine can run a model at all, for the model
// lists (OpenAI's /v1/models `fit`): placed with its configured options on
// the discovered devices with nothing else loaded (placement/fit.h), with
// what the engines have taught the planner so far. InstancePool implements
// it. Any thread.
#pragma once

#include <cstdint>
#include <optional>

#include "models/model_registry.h"
#include "placement/fit.h"

namespace zest::scheduler {

class FitEstimates {
 public:
  virtual ~FitEstimates() = default;

  // nullopt until the devices are known (a second or so after start).
  virtual std::optional<placement::ModelFit> Fit(const models::ModelEntry& model) = 0;
  // The same for a model known only by its file size (a catalog entry).
  virtual std::optional<placement::ModelFit> FitOfSize(uint64_t file_bytes) = 0;
};

}  // namespace zest::scheduler
