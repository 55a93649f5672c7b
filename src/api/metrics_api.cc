#include "api/metrics_api.h"

namespace zest::api {

void RegisterMetricsRoute(http::Router& router, metrics::Registry& registry) {
  router.Add("GET", "/metrics",
             [&registry](http::Request&, http::ResponseWriter& w) -> boost::asio::awaitable<void> {
               std::string text = registry.Render();
               co_await w.Send(200, "text/plain; version=0.0.4; charset=utf-8", std::move(text));
             });
}

}  // namespace zest::api
