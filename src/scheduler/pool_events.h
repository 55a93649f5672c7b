// PoolEvents: what the InstancePool tells observers (metrics) about engine
// lifecycles. Calls come from the pool's strand or its blocking pool, one at
// a time per event, never while the pool holds a lock; implementations must
// be thread-safe and quick (no I/O). Every method has a no-op default so an
// observer overrides only what it needs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zest::scheduler {

class PoolEvents {
 public:
  virtual ~PoolEvents() = default;
  // An engine for `model` became ready `load_seconds` after it was spawned.
  virtual void EngineReady(const std::string& /*model*/, double /*load_seconds*/) {}
  // An engine for `model` could not be spawned or never became ready.
  virtual void EngineFailedToStart(const std::string& /*model*/) {}
  // A ready engine for `model` was found dead (crash, OOM kill, killed).
  virtual void EngineCrashed(const std::string& /*model*/) {}
  // A ready engine was stopped on purpose; `reason` is a bounded word
  // ("unload", ...), used as a metric label.
  virtual void EngineStopped(const std::string& /*model*/, std::string_view /*reason*/) {}
  // The autoscaler added (`direction` "up") or removed ("down") an
  // instance of `model`.
  virtual void Autoscaled(const std::string& /*model*/, std::string_view /*direction*/) {}
  // A request of a session (api/session_key.h) was dispatched to one of
  // `model`'s instances; `outcome` "hit", "miss" or "fallback"
  // (session_affinity.h), a metric label.
  virtual void SessionDispatched(const std::string& /*model*/, std::string_view /*outcome*/) {}
  // The session tier (session_tier.h) saved a conversation of `model`
  // into a file of `bytes`; restored one (`ok`) or failed to; holds
  // `bytes` of `model`'s session files on disk now.
  virtual void SessionCacheSaved(const std::string& /*model*/, uint64_t /*bytes*/) {}
  virtual void SessionCacheRestored(const std::string& /*model*/, bool /*ok*/, uint64_t /*bytes*/) {
  }
  virtual void SessionCacheDisk(const std::string& /*model*/, uint64_t /*bytes*/) {}
  // After a load: the memory the placement ledger predicted on `device`
  // and what the engine really took there, for the model's instance that
  // computes on `instance_device` (a model's replicas each have their own).
  virtual void EngineMemory(const std::string& /*model*/, const std::string& /*instance_device*/,
                            const std::string& /*device*/, uint64_t /*predicted_bytes*/,
                            uint64_t /*measured_bytes*/) {}
};

}  // namespace zest::scheduler
