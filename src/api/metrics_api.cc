#include "api/metrics_api.h"

#include "api/engine_scrape.h"

namespace zest::api {

void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry,
                          scheduler::InstanceDirectory* instances,
                          const engines::EngineSet* engine_set) {
  router.Add("GET", "/metrics",
             [&registry, instances, engine_set](
                 http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               std::string text = registry.Render();
               if (instances != nullptr) {
                 text += ReexportEngineMetrics(co_await ScrapeEngines(*instances, engine_set));
               }
               co_await w.Send(200, "text/plain; version=0.0.4; charset=utf-8", std::move(text));
             });
}

}  // namespace zest::api
