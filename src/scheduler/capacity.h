// How admission and the engine pool talk, as two small interfaces, so that
// neither names the other's type and the server can build them in order
// (the pool first, then admission, which asks it; then the pool is told
// whom to report to):
//  - EngineSlots: how many sequences one engine of a model runs (its
//    `--parallel`), which sizes the model's admission gate before the
//    model has a ready instance. Implemented by InstancePool.
//  - CapacityListener: a model's ready instances changed. Implemented by
//    Admission, which gives the model's gate the slots of all of them.
#pragma once

#include <string>

namespace zest::scheduler {

class EngineSlots {
 public:
  virtual ~EngineSlots() = default;
  // The engine's parallel sequences for `model`. Any thread.
  virtual int EngineParallel(const std::string& model) = 0;
};

class CapacityListener {
 public:
  virtual ~CapacityListener() = default;
  // `instances` ready instances of `model` take requests, with
  // `engine_slots` sequences together (0, 0: none). Any thread; must not
  // call back into the pool.
  virtual void SetCapacity(const std::string& model, int instances, int engine_slots) = 0;
};

}  // namespace zest::scheduler
