// ObservabilityApi: live numbers and logs for people (and `zest top`,
// `zest logs`):
//   GET /api/v1/stats  the last request (time to first token, tokens/s,
//                      prompt/completion/cached tokens, like Lemonade's
//                      /stats), plus per-model queues and token totals;
//   GET /api/v1/logs   zest's recent log lines, or with ?model= the model's
//                      engine's; ?n= lines (default 100), ?follow=1 streams
//                      new lines as SSE until the client leaves.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "core/ring_buffer.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "relay/inference_metrics.h"
#include "scheduler/admission.h"
#include "scheduler/instance_directory.h"

namespace zest::api::admin {

class ObservabilityApi {
 public:
  // All references must outlive the router; `metrics` may be null (metrics
  // off: no last-request stats), `log_ring` is zest's own log.
  ObservabilityApi(relay::InferenceMetrics* metrics, scheduler::Admission& admission,
                   scheduler::InstanceDirectory& pool, models::ModelRegistry& registry,
                   std::shared_ptr<LineRing> log_ring)
      : metrics_(metrics),
        admission_(admission),
        pool_(pool),
        registry_(registry),
        log_ring_(std::move(log_ring)) {}

  void Register(http::Router& router);
  // The body of GET /api/v1/stats, as `reader` may see it: an admin key
  // (or any client of a server without keys) sees the last request of
  // anyone and the totals; an inference key its own last request only.
  nlohmann::json StatsJson(const http::Request& reader) const;

 private:
  boost::asio::awaitable<void> Logs(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> Follow(std::shared_ptr<const LineRing> ring, std::size_t n,
                                      std::shared_ptr<void> keep_alive,
                                      http::ResponseWriter& writer);

  relay::InferenceMetrics* const metrics_;
  scheduler::Admission& admission_;
  scheduler::InstanceDirectory& pool_;
  models::ModelRegistry& registry_;
  const std::shared_ptr<LineRing> log_ring_;
};

}  // namespace zest::api::admin
