#include "api/engine_scrape.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>
#include <string_view>

#include "http/upstream_client.h"
#include "metrics/registry.h"

namespace zest::api {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

constexpr auto kScrapeTimeout = std::chrono::seconds(1);
constexpr std::size_t kMaxEngineMetricsBytes = 1 << 20;

struct Selected {
  const char* engine_name;  // llama-server's, without "llamacpp:"
  const char* zest_name;
  const char* type;
};

// What an operator needs from the engine that zest cannot see itself: its
// own throughput, cache reuse, decode batching and deferred requests.
constexpr Selected kSelected[] = {
    {"prompt_tokens_total", "zest_engine_prompt_tokens_total", "counter"},
    {"prompt_tokens_cached_total", "zest_engine_prompt_tokens_cached_total", "counter"},
    {"prompt_seconds_total", "zest_engine_prompt_seconds_total", "counter"},
    {"tokens_predicted_total", "zest_engine_tokens_predicted_total", "counter"},
    {"tokens_predicted_seconds_total", "zest_engine_tokens_predicted_seconds_total", "counter"},
    {"n_decode_total", "zest_engine_decode_calls_total", "counter"},
    {"prompt_tokens_seconds", "zest_engine_prompt_tokens_per_second", "gauge"},
    {"predicted_tokens_seconds", "zest_engine_predicted_tokens_per_second", "gauge"},
    {"requests_processing", "zest_engine_requests_processing", "gauge"},
    {"requests_deferred", "zest_engine_requests_deferred", "gauge"},
    {"n_busy_slots_per_decode", "zest_engine_busy_slots_per_decode", "gauge"},
};

const Selected* Find(std::string_view engine_name) {
  for (const Selected& s : kSelected) {
    if (engine_name == s.engine_name) return &s;
  }
  return nullptr;
}

struct Family {
  std::string help;
  std::string type;
  std::vector<std::string> samples;
};

// One sample line "llamacpp:name{labels} value" → (family, line in zest's
// naming with the model label first). False for anything else.
bool Rewrite(std::string_view line, const EngineExposition& engine, const Selected** family,
             std::string* out) {
  constexpr std::string_view kPrefix = "llamacpp:";
  if (!line.starts_with(kPrefix)) return false;
  line.remove_prefix(kPrefix.size());
  std::size_t name_end = line.find_first_of("{ ");
  if (name_end == std::string_view::npos) return false;
  *family = Find(line.substr(0, name_end));
  if (*family == nullptr) return false;
  std::string labels = "model=\"" + metrics::EscapeLabelValue(engine.model) + "\"";
  if (!engine.device.empty())
    labels += ",device=\"" + metrics::EscapeLabelValue(engine.device) + "\"";
  std::string_view rest = line.substr(name_end);
  if (rest.starts_with("{")) {
    std::size_t close = rest.find('}');
    if (close == std::string_view::npos) return false;
    if (close > 1) labels += "," + std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
  }
  if (rest.size() < 2 || rest[0] != ' ') return false;
  *out = std::string((*family)->zest_name) + "{" + labels + "}" + std::string(rest);
  return true;
}

}  // namespace

std::string ReexportEngineMetrics(const std::vector<EngineExposition>& engines) {
  std::map<std::string, Family> families;  // by zest name
  for (const EngineExposition& e : engines) {
    std::string_view text = e.text;
    while (!text.empty()) {
      std::size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
      const Selected* selected = nullptr;
      std::string sample;
      if (line.starts_with("# HELP llamacpp:")) {
        std::string_view rest = line.substr(16);
        std::size_t space = rest.find(' ');
        const Selected* s = Find(rest.substr(0, space));
        if (s && space != std::string_view::npos)
          families[s->zest_name].help = std::string(rest.substr(space + 1));
      } else if (Rewrite(line, e, &selected, &sample)) {
        families[selected->zest_name].type = selected->type;
        families[selected->zest_name].samples.push_back(std::move(sample));
      }
    }
  }
  std::string out;
  for (const auto& [name, family] : families) {
    if (family.samples.empty()) continue;
    out += "# HELP " + name +
           " llama-server: " + (family.help.empty() ? std::string("engine metric") : family.help) +
           "\n";
    out += "# TYPE " + name + " " + family.type + "\n";
    for (const std::string& s : family.samples) out += s + "\n";
  }
  return out;
}

awaitable<std::vector<EngineExposition>> ScrapeEngines(scheduler::InstancePool& pool) {
  auto executor = co_await asio::this_coro::executor;
  std::vector<EngineExposition> out;
  for (const scheduler::InstanceStatus& s : pool.List()) {
    if (s.state != "ready") continue;
    auto canceller = std::make_shared<http::UpstreamCanceller>();
    asio::steady_timer deadline(executor);
    deadline.expires_after(kScrapeTimeout);
    deadline.async_wait([canceller](const boost::system::error_code& ec) {
      if (!ec) canceller->Cancel();
    });
    http::UpstreamRequest request;
    request.target = "/metrics";
    request.connect_timeout = std::chrono::milliseconds(500);
    request.canceller = canceller;
    auto response = co_await http::SendUpstream(executor, s.socket, request);
    if (response.ok() && (*response)->status() == 200) {
      auto body = co_await (*response)->ReadAll(kMaxEngineMetricsBytes);
      // A replica's series carry its device, so they differ from the first's.
      if (body.ok()) out.push_back({s.model, std::move(*body), s.replica ? s.device : ""});
    }
    deadline.cancel();
  }
  co_return out;
}

}  // namespace zest::api
