#include "api/admin/events_api.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "core/duration.h"
#include "http/sse.h"
#include "relay/json_text.h"

namespace zest::api::admin {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

constexpr auto kInterval = std::chrono::seconds(1);

// One histogram family summed over its label values (all models, all
// priorities), as cumulative buckets. Every child shares the bounds.
json SummedHistogram(const metrics::Family<metrics::Histogram>& family) {
  std::vector<double> bounds;
  std::vector<uint64_t> cumulative;
  double sum = 0;
  uint64_t count = 0;
  family.ForEach([&](const metrics::LabelValues&, const metrics::Histogram& h) {
    metrics::Histogram::Snapshot s = h.Read();
    if (cumulative.empty()) {
      bounds = s.bounds;
      cumulative.assign(s.cumulative.size(), 0);
    }
    for (std::size_t i = 0; i < cumulative.size() && i < s.cumulative.size(); ++i) {
      cumulative[i] += s.cumulative[i];
    }
    sum += s.sum;
    count += s.count;
  });
  json buckets = json::array();
  for (std::size_t i = 0; i < cumulative.size(); ++i) {
    json bound = i < bounds.size() ? json(bounds[i]) : json("+Inf");
    buckets.push_back(json::array({bound, cumulative[i]}));
  }
  return {{"buckets", buckets}, {"count", count}, {"sum", sum}};
}

// A counter family's value per model (its one label), for rates the page
// works out between snapshots.
json PerModel(const metrics::Family<metrics::Counter>& family) {
  json out = json::object();
  family.ForEach([&](const metrics::LabelValues& labels, const metrics::Counter& c) {
    if (!labels.empty()) out[labels.front()] = c.value();
  });
  return out;
}

}  // namespace

json EventsApi::LatencyJson() const {
  if (metrics_ == nullptr) return json::object();
  return {{"time_to_first_token", SummedHistogram(metrics_->time_to_first_token)},
          {"inter_token_latency", SummedHistogram(metrics_->inter_token_latency)},
          {"queue_wait", SummedHistogram(metrics_->queue_wait)}};
}

awaitable<json> EventsApi::Snapshot(const http::Request& reader) {
  const http::Access access = reader.access;
  json system = co_await system_.InfoJson(access);
  json out = {{"time", UnixSeconds()},
              {"stats", observability_.StatsJson(reader)},
              {"ps", admin_.PsJson(access)},
              {"system", std::move(system)},
              {"latency", LatencyJson()},
              {"generated_tokens",
               metrics_ != nullptr ? PerModel(metrics_->completion_tokens) : json::object()}};
  // Allow-list: only a key that may read the logs sees other requests' errors.
  if (access == http::Access::kAdmin) out["errors"] = errors_.Json();
  co_return out;
}

awaitable<void> EventsApi::Stream(http::Request& request, http::ResponseWriter& w) {
  const http::Headers headers = {{"Cache-Control", "no-cache"}};
  if (!co_await w.StartStream(200, "text/event-stream", headers)) co_return;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!w.client_gone()) {
    json snapshot = co_await Snapshot(request);
    std::string event = http::SseData(relay::JsonText(snapshot));
    if (!co_await w.WriteChunk(event)) co_return;
    timer.expires_after(kInterval);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

void EventsApi::Register(http::Router& router) {
  router.Add("GET", "/api/v1/events",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               co_await Stream(r, w);
             });
  router.SetLongLived("GET", "/api/v1/events");
}

}  // namespace zest::api::admin
