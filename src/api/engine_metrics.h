// EngineMetrics: engine lifecycle metrics, fed by the InstancePool's events
// (scheduler::PoolEvents): starts by result, crashes, restarts (a start
// after a crash of the same model), evictions by reason, and the model load
// time distribution (spawn to ready, as the pool measured it), and the
// autoscaler's replicas added and removed, and where requests of a session
// went (session affinity: hit, miss, fallback), and the session tier's
// saves, restores and bytes on disk (scheduler/session_tier.h).
// Thread-safe.
#pragma once

#include <mutex>
#include <set>
#include <string>

#include "core/mutex.h"
#include "metrics/registry.h"
#include "scheduler/pool_events.h"

namespace zest::api {

class EngineMetrics : public scheduler::PoolEvents {
 public:
  explicit EngineMetrics(metrics::Registry& registry);

  void EngineReady(const std::string& model, double load_seconds) override;
  void EngineFailedToStart(const std::string& model) override;
  void EngineCrashed(const std::string& model) override;
  void EngineStopped(const std::string& model, std::string_view reason) override;
  void Autoscaled(const std::string& model, std::string_view direction) override;
  void SessionDispatched(const std::string& model, std::string_view outcome) override;
  void SessionCacheSaved(const std::string& model, uint64_t bytes) override;
  void SessionCacheRestored(const std::string& model, bool ok, uint64_t bytes) override;
  void SessionCacheDisk(const std::string& model, uint64_t bytes) override;
  void EngineMemory(const std::string& model, const std::string& instance_device,
                    const std::string& device, uint64_t predicted_bytes,
                    uint64_t measured_bytes) override;

  // The memory ledger's prediction and what the engine really took, per
  // model and device (placement sets them; labels: model, device).
  metrics::Family<metrics::Gauge>& memory_predicted;
  metrics::Family<metrics::Gauge>& memory_actual;

 private:
  metrics::Family<metrics::Counter>& starts_;                  // model, result
  metrics::Family<metrics::Counter>& crashes_;                 // model
  metrics::Family<metrics::Counter>& restarts_;                // model
  metrics::Family<metrics::Counter>& evictions_;               // model, reason
  metrics::Family<metrics::Histogram>& load_time_;             // model
  metrics::Family<metrics::Counter>& autoscale_;               // model, direction
  metrics::Family<metrics::Counter>& affinity_;                // model, outcome
  metrics::Family<metrics::Counter>& session_saves_;           // model
  metrics::Family<metrics::Counter>& session_saved_bytes_;     // model
  metrics::Family<metrics::Counter>& session_restores_;        // model, outcome
  metrics::Family<metrics::Counter>& session_restored_bytes_;  // model
  metrics::Family<metrics::Gauge>& session_disk_;              // model
  Mutex mu_;
  std::set<std::string> crashed_ GUARDED_BY(mu_);  // models whose last engine crashed
};

}  // namespace zest::api
