#include "api/metrics_api.h"

#include "api/engine_scrape.h"

namespace zest::api {

void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry,
                          scheduler::InstancePool* pool) {
  router.Add(
      "GET", "/metrics",
      [&registry, pool](http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
        std::string text = registry.Render();
        if (pool != nullptr) text += ReexportEngineMetrics(co_await ScrapeEngines(*pool));
        co_await w.Send(200, "text/plain; version=0.0.4; charset=utf-8", std::move(text));
      });
}

}  // namespace zest::api
