#include "api/engine_scrape.h"

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

const engines::EngineMetric* Find(const engines::EngineMetrics& metrics,
                                  std::string_view engine_name) {
  for (const engines::EngineMetric& m : metrics.families) {
    if (engine_name == m.engine_name) return &m;
  }
  return nullptr;
}

struct Family {
  std::string engine;  // whose family (its HELP says so)
  std::string help;
  std::string type;
  std::vector<std::string> samples;
};

// One sample line "<prefix>name{labels} value" → (family, line in zest's
// naming with the model label first). False for anything else.
bool Rewrite(std::string_view line, const EngineExposition& engine,
             const engines::EngineMetrics& metrics, const engines::EngineMetric** family,
             std::string* out) {
  const std::string_view prefix = metrics.prefix;
  if (!line.starts_with(prefix)) return false;
  line.remove_prefix(prefix.size());
  std::size_t name_end = line.find_first_of("{ ");
  if (name_end == std::string_view::npos) return false;
  *family = Find(metrics, line.substr(0, name_end));
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
    std::optional<engines::EngineMetrics> metrics =
        e.engine != nullptr ? e.engine->metrics() : std::nullopt;
    if (!metrics) continue;
    const std::string help_prefix = std::string("# HELP ") + metrics->prefix;
    std::string_view text = e.text;
    while (!text.empty()) {
      std::size_t nl = text.find('\n');
      std::string_view line = text.substr(0, nl);
      text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
      const engines::EngineMetric* selected = nullptr;
      std::string sample;
      if (line.starts_with(help_prefix)) {
        std::string_view rest = line.substr(help_prefix.size());
        std::size_t space = rest.find(' ');
        const engines::EngineMetric* m = Find(*metrics, rest.substr(0, space));
        if (m && space != std::string_view::npos)
          families[m->zest_name].help = std::string(rest.substr(space + 1));
      } else if (Rewrite(line, e, *metrics, &selected, &sample)) {
        Family& family = families[selected->zest_name];
        family.engine = e.engine->name();
        family.type = selected->type;
        family.samples.push_back(std::move(sample));
      }
    }
  }
  std::string out;
  for (const auto& [name, family] : families) {
    if (family.samples.empty()) continue;
    out += "# HELP " + name + " " + family.engine + ": " +
           (family.help.empty() ? std::string("engine metric") : family.help) + "\n";
    out += "# TYPE " + name + " " + family.type + "\n";
    for (const std::string& s : family.samples) out += s + "\n";
  }
  return out;
}

awaitable<std::vector<EngineExposition>> ScrapeEngines(scheduler::InstanceDirectory& instances,
                                                       const engines::EngineSet* engine_set) {
  auto executor = co_await asio::this_coro::executor;
  std::vector<EngineExposition> out;
  for (const scheduler::InstanceStatus& s : instances.List()) {
    if (s.state != "ready" || engine_set == nullptr) continue;
    const engines::EngineAdapter* engine = engine_set->Named(s.engine);
    std::optional<engines::EngineMetrics> metrics =
        engine != nullptr ? engine->metrics() : std::nullopt;
    if (!metrics) continue;
    const http::UpstreamDeadline deadline(executor, kScrapeTimeout);
    http::UpstreamRequest request;
    request.target = metrics->path;
    request.connect_timeout = std::chrono::milliseconds(500);
    request.canceller = deadline.canceller();
    auto response = co_await http::SendUpstream(executor, s.socket, request);
    if (response.ok() && (*response)->status() == 200) {
      auto body = co_await (*response)->ReadAll(kMaxEngineMetricsBytes);
      // A replica's series carry its device, so they differ from the first's.
      if (body.ok()) out.push_back({engine, s.model, std::move(*body), s.replica ? s.device : ""});
    }
  }
  co_return out;
}

}  // namespace zest::api
