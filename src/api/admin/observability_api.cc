#include "api/admin/observability_api.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>

#include "api/admin/models_api.h"
#include "api/request/errors.h"
#include "http/sse.h"
#include "relay/json_text.h"

namespace zest::api::admin {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

constexpr auto kFollowPoll = std::chrono::milliseconds(250);
constexpr std::size_t kDefaultLines = 100;
constexpr std::size_t kMaxLines = 10000;

json Optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Lemonade's field names (time_to_first_token, tokens_per_second,
// input_tokens, output_tokens) with zest's additions.
json LastRequestJson(const std::optional<relay::RequestStats>& last) {
  if (!last) {
    return {{"model", nullptr},
            {"time_to_first_token", nullptr},
            {"tokens_per_second", nullptr},
            {"input_tokens", nullptr},
            {"output_tokens", nullptr}};
  }
  return {
      {"model", last->model},
      {"api", last->api},
      {"endpoint", last->endpoint},
      {"stream", last->stream},
      {"time_to_first_token", Optional(last->time_to_first_token_s)},
      {"prompt_processing_seconds", Optional(last->prompt_processing_s)},
      {"tokens_per_second", Optional(last->tokens_per_second)},
      {"duration_seconds", last->duration_s},
      {"input_tokens", last->prompt_tokens},
      {"prompt_tokens", last->prompt_tokens},
      {"output_tokens", last->completion_tokens},
      {"cached_tokens", last->cached_tokens},
      {"draft_tokens", last->draft_tokens ? json(*last->draft_tokens) : json(nullptr)},
      {"accepted_tokens", last->accepted_tokens ? json(*last->accepted_tokens) : json(nullptr)}};
}

// Per model that drafted: tokens drafted and accepted since the start, and
// the share accepted (what decides whether drafting pays); and, where
// `auto` switched its draft off for that (scheduler/draft_acceptance.h),
// what its loaded instance's plan says was measured.
json SpeculativeJson(const relay::InferenceMetrics& metrics,
                     const std::vector<scheduler::InstanceStatus>& instances) {
  std::map<std::string, std::pair<double, double>> by_model;
  metrics.spec_drafted.ForEach([&](const metrics::LabelValues& labels, const metrics::Counter& c) {
    by_model[labels.at(0)].first = c.value();
  });
  metrics.spec_accepted.ForEach([&](const metrics::LabelValues& labels, const metrics::Counter& c) {
    by_model[labels.at(0)].second = c.value();
  });
  json out = json::array();
  for (const auto& [model, counts] : by_model) {
    const auto [drafted, accepted] = counts;
    out.push_back({{"model", model},
                   {"drafted_tokens", drafted},
                   {"accepted_tokens", accepted},
                   {"acceptance", drafted > 0 ? json(accepted / drafted) : json(nullptr)}});
    for (const auto& instance : instances) {
      const auto& off = instance.plan.speculative.switched_off;
      if (instance.model != model || !off) continue;
      out.back()["switched_off"] = {{"draft", off->draft_model},
                                    {"acceptance", off->acceptance},
                                    {"drafted_tokens", off->drafted}};
    }
  }
  return out;
}

double Sum(const metrics::Family<metrics::Counter>& family) {
  double total = 0;
  family.ForEach(
      [&](const metrics::LabelValues&, const metrics::Counter& c) { total += c.value(); });
  return total;
}

Result<std::size_t> LineCount(const std::string& text) {
  if (text.empty()) return kDefaultLines;
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > kMaxLines) {
    return InvalidArgument("n must be a number of lines from 0 to " + std::to_string(kMaxLines));
  }
  return n;
}

std::string LineEvent(const std::string& line) {
  json event = {{"line", line}};
  return http::SseData(relay::JsonText(event));
}

}  // namespace

json ObservabilityApi::StatsJson(const http::Request& reader) const {
  const bool admin = reader.access == http::Access::kAdmin;
  std::optional<relay::RequestStats> last;
  if (metrics_) last = admin ? metrics_->Last() : metrics_->LastOf(reader.principal);
  json out = LastRequestJson(last);
  json queues = json::array();
  for (const auto& q : admission_.Stats()) {
    queues.push_back(
        {{"model", q.model},
         {"slots", q.slots},
         {"busy", q.busy},
         {"waiting",
          {{"high", q.waiting_high}, {"normal", q.waiting_normal}, {"low", q.waiting_low}}}});
  }
  out["queues"] = queues;
  if (metrics_ && admin) {
    out["totals"] = {{"requests", Sum(metrics_->requests)},
                     {"prompt_tokens", Sum(metrics_->prompt_tokens)},
                     {"completion_tokens", Sum(metrics_->completion_tokens)},
                     {"cached_tokens", Sum(metrics_->cached_tokens)}};
    out["speculative"] = SpeculativeJson(*metrics_, pool_.List());
  }
  return out;
}

awaitable<void> ObservabilityApi::Logs(http::Request& r, http::ResponseWriter& w) {
  auto n = LineCount(QueryParam(r.query, "n"));
  if (!n.ok()) co_return co_await api::SendError(w, n.status(), "n");
  std::string follow = QueryParam(r.query, "follow");
  std::string name = QueryParam(r.query, "model");
  std::shared_ptr<const LineRing> ring = log_ring_;
  std::shared_ptr<void> owner;  // keeps an engine's ring alive while following
  if (!name.empty()) {
    auto model = registry_.Find(name);
    if (!model.ok()) co_return co_await api::SendError(w, model.status(), "model");
    std::shared_ptr<scheduler::Instance> instance = pool_.Find(model->name);
    if (!instance) {
      co_return co_await api::SendError(
          w,
          NotFound("model '" + model->name + "' has no running engine; its last log is in " +
                   "$ZEST_HOME/logs/"),
          "model");
    }
    ring = std::shared_ptr<const LineRing>(instance, &instance->process().output());
    owner = instance;
  }
  if (follow == "1" || follow == "true") co_return co_await Follow(ring, *n, owner, w);
  json lines = ring->Tail(*n);
  json out = {{"lines", lines}};
  std::string body = relay::JsonText(out);  // named: no temporaries inside co_await (GCC 12)
  co_await w.Send(200, "application/json", std::move(body));
}

// The last `n` lines, then each new line as it is logged (polled: logging
// must not wait on HTTP clients).
awaitable<void> ObservabilityApi::Follow(std::shared_ptr<const LineRing> ring, std::size_t n,
                                         std::shared_ptr<void>, http::ResponseWriter& w) {
  const http::Headers headers = {{"Cache-Control", "no-cache"}};
  if (!co_await w.StartStream(200, "text/event-stream", headers)) co_return;
  uint64_t next = 0;
  std::vector<std::string> lines =
      ring->Since(0, &next);  // held lines and the next number, at once
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!w.client_gone()) {
    std::string chunk;
    for (const std::string& line : lines) chunk += LineEvent(line);
    if (!chunk.empty() && !co_await w.WriteChunk(chunk)) co_return;
    timer.expires_after(kFollowPoll);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    lines = ring->Since(next, &next);
  }
}

void ObservabilityApi::Register(http::Router& router) {
  router.Add("GET", "/api/v1/stats",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               std::string body = StatsJson(r).dump();
               co_await w.Send(200, "application/json", std::move(body));
             });
  router.Add("GET", "/api/v1/logs",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               co_await Logs(r, w);
             });
  router.SetLongLived("GET", "/api/v1/logs");  // with ?follow
}

}  // namespace zest::api::admin
