// EventsApi: GET /api/v1/events, the web dashboard's one live connection.
// An SSE event right away, then one a second, each a snapshot of what the
// separate routes answer:
//   {"time": unix s, "stats": GET /api/v1/stats, "ps": GET /api/v1/ps,
//    "system": GET /api/v1/system-info,
//    "latency": {"time_to_first_token" | "inter_token_latency" | "queue_wait":
//                {"buckets": [[upper bound s | "+Inf", cumulative count]...],
//                 "count", "sum"}}  (summed over models),
//    "generated_tokens": {model: tokens generated since start},
//    "errors": RecentErrors (admin keys only: other tenants' requests)}
// The page works out percentiles over time from successive histograms, so
// the server keeps no history per client.
#pragma once

#include <nlohmann/json.hpp>

#include "api/admin/admin_api.h"
#include "api/admin/observability_api.h"
#include "api/admin/system_api.h"
#include "api/recent_errors.h"
#include "http/router.h"
#include "relay/inference_metrics.h"

namespace zest::api::admin {

class EventsApi {
 public:
  // All references must outlive the router; `metrics` may be null (metrics
  // off: no latency histograms).
  EventsApi(ObservabilityApi& observability, AdminApi& admin, SystemApi& system,
            relay::InferenceMetrics* metrics, const RecentErrors& errors)
      : observability_(observability),
        admin_(admin),
        system_(system),
        metrics_(metrics),
        errors_(errors) {}

  void Register(http::Router& router);

 private:
  boost::asio::awaitable<void> Stream(http::Request& request, http::ResponseWriter& writer);
  // One event for a request with `access`: other requests' errors and the
  // engines' process ids and sockets for admin access only.
  boost::asio::awaitable<nlohmann::json> Snapshot(const http::Request& reader);
  nlohmann::json LatencyJson() const;

  ObservabilityApi& observability_;
  AdminApi& admin_;
  SystemApi& system_;
  relay::InferenceMetrics* const metrics_;
  const RecentErrors& errors_;
};

}  // namespace zest::api::admin
