#include "api/engine_metrics.h"

namespace zest::api {
namespace {

// Loads take from a fraction of a second (a tiny model, warm page cache) to
// minutes (tens of GB from disk, GPU shader compilation).
std::vector<double> LoadBuckets() { return {0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600}; }

}  // namespace

EngineMetrics::EngineMetrics(metrics::Registry& r)
    : memory_predicted(r.AddGauge("zest_memory_predicted_bytes",
                                  "Memory the placement ledger predicted for an instance.",
                                  {"model", "instance_device", "device"})),
      memory_actual(r.AddGauge("zest_memory_actual_bytes",
                               "Memory an instance really took, measured after its load.",
                               {"model", "instance_device", "device"})),
      starts_(r.AddCounter("zest_engine_starts_total", "Engine starts by result (ready, failed).",
                           {"model", "result"})),
      crashes_(r.AddCounter("zest_engine_crashes_total",
                            "Ready engines found dead (crashed or killed).", {"model"})),
      restarts_(r.AddCounter("zest_engine_restarts_total",
                             "Engines started again after the model's previous engine crashed.",
                             {"model"})),
      evictions_(r.AddCounter("zest_evictions_total", "Engines stopped on purpose, by reason.",
                              {"model", "reason"})),
      load_time_(r.AddHistogram("zest_model_load_duration_seconds",
                                "Time from spawning an engine to its readiness.", {"model"},
                                LoadBuckets())),
      autoscale_(r.AddCounter("zest_autoscale_total",
                              "Instances the autoscaler added (up) or removed (down).",
                              {"model", "direction"})),
      affinity_(r.AddCounter("zest_session_affinity_total",
                             "Requests of a session by where dispatch sent them: to the replica "
                             "that served the session last (hit), by load for a new session "
                             "(miss), or by load because that replica was full or gone (fallback).",
                             {"model", "outcome"})),
      session_saves_(r.AddCounter("zest_session_cache_saves_total",
                                  "Conversations the session tier saved to disk before their "
                                  "engine stopped.",
                                  {"model"})),
      session_saved_bytes_(r.AddCounter("zest_session_cache_saved_bytes_total",
                                        "Bytes of the session files written.", {"model"})),
      session_restores_(r.AddCounter("zest_session_cache_restores_total",
                                     "Session files restored into a slot before a session's "
                                     "request (hit), or that the engine refused (failed).",
                                     {"model", "outcome"})),
      session_restored_bytes_(r.AddCounter("zest_session_cache_restored_bytes_total",
                                           "Bytes of the session files restored.", {"model"})),
      session_disk_(r.AddGauge("zest_session_cache_disk_bytes",
                               "The model's session files on disk, after its last stop.",
                               {"model"})) {}

void EngineMetrics::EngineReady(const std::string& model, double load_seconds) {
  starts_.With({model, "ready"}).Inc();
  load_time_.With({model}).Observe(load_seconds);
  MutexLock lock(mu_);
  if (crashed_.erase(model) > 0) restarts_.With({model}).Inc();
}

void EngineMetrics::EngineFailedToStart(const std::string& model) {
  starts_.With({model, "failed"}).Inc();
}

void EngineMetrics::EngineCrashed(const std::string& model) {
  crashes_.With({model}).Inc();
  MutexLock lock(mu_);
  crashed_.insert(model);
}

void EngineMetrics::EngineStopped(const std::string& model, std::string_view reason) {
  evictions_.With({model, std::string(reason)}).Inc();
}

void EngineMetrics::Autoscaled(const std::string& model, std::string_view direction) {
  autoscale_.With({model, std::string(direction)}).Inc();
}

void EngineMetrics::SessionDispatched(const std::string& model, std::string_view outcome) {
  affinity_.With({model, std::string(outcome)}).Inc();
}

void EngineMetrics::SessionCacheSaved(const std::string& model, uint64_t bytes) {
  session_saves_.With({model}).Inc();
  session_saved_bytes_.With({model}).Inc(static_cast<double>(bytes));
}

void EngineMetrics::SessionCacheRestored(const std::string& model, bool ok, uint64_t bytes) {
  session_restores_.With({model, ok ? "hit" : "failed"}).Inc();
  if (ok) session_restored_bytes_.With({model}).Inc(static_cast<double>(bytes));
}

void EngineMetrics::SessionCacheDisk(const std::string& model, uint64_t bytes) {
  session_disk_.With({model}).Set(static_cast<double>(bytes));
}

void EngineMetrics::EngineMemory(const std::string& model, const std::string& instance_device,
                                 const std::string& device, uint64_t predicted_bytes,
                                 uint64_t measured_bytes) {
  memory_predicted.With({model, instance_device, device}).Set(static_cast<double>(predicted_bytes));
  memory_actual.With({model, instance_device, device}).Set(static_cast<double>(measured_bytes));
}

}  // namespace zest::api
