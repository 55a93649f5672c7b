#include "api/inference_metrics.h"

#include <nlohmann/json.hpp>

namespace zest::api {
namespace {

using nlohmann::json;

// Gaps between tokens are milliseconds, not seconds.
std::vector<double> TokenGapBuckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
}

uint64_t UintAt(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// Does this event carry generated text? (The first chat event only names the
// role; the last only carries finish_reason and timings.)
bool CarriesText(std::string_view data) {
  for (std::string_view key : {"\"content\":\"", "\"text\":\"", "\"reasoning_content\":\""}) {
    auto at = data.find(key);
    if (at != std::string_view::npos && data.substr(at + key.size(), 1) != "\"") return true;
  }
  return false;
}

}  // namespace

InferenceMetrics::InferenceMetrics(metrics::Registry& r)
    : requests(r.AddCounter("zest_requests_total", "Inference requests by endpoint, model and status.",
                            {"endpoint", "model", "status"})),
      duration(r.AddHistogram("zest_request_duration_seconds",
                              "End-to-end latency of inference requests.", {"endpoint", "model"})),
      time_to_first_token(r.AddHistogram("zest_time_to_first_token_seconds",
                                         "Time from request to the first generated text, streamed requests.",
                                         {"model"})),
      inter_token_latency(r.AddHistogram("zest_inter_token_latency_seconds",
                                         "Time between streamed tokens.", {"model"}, TokenGapBuckets())),
      prompt_tokens(r.AddCounter("zest_prompt_tokens_total", "Prompt tokens processed.", {"model"})),
      completion_tokens(r.AddCounter("zest_completion_tokens_total", "Tokens generated.", {"model"})),
      cached_tokens(r.AddCounter("zest_cached_tokens_total", "Prompt tokens served from the KV cache.",
                                 {"model"})) {}

TokenUsage ParseTokenUsage(std::string_view text) {
  TokenUsage usage;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return usage;
  if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
    usage.prompt = UintAt(*u, "prompt_tokens");
    usage.completion = UintAt(*u, "completion_tokens");
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) {
      usage.cached = UintAt(*d, "cached_tokens");
    }
    usage.found = true;
  } else if (auto t = doc.find("timings"); t != doc.end() && t->is_object()) {
    usage.cached = UintAt(*t, "cache_n");
    usage.prompt = UintAt(*t, "prompt_n") + usage.cached;
    usage.completion = UintAt(*t, "predicted_n");
    usage.found = true;
  }
  return usage;
}

RequestObserver::RequestObserver(InferenceMetrics* metrics, std::string endpoint, std::string model)
    : metrics_(metrics), endpoint_(std::move(endpoint)), model_(std::move(model)) {}

void RequestObserver::OnStreamEvent(std::string_view data) {
  if (metrics_ == nullptr) return;
  if (CarriesText(data)) {
    Clock::time_point now = Clock::now();
    if (!first_token_seen_) {
      metrics_->time_to_first_token.With({model_}).Observe(
          std::chrono::duration<double>(now - start_).count());
      first_token_seen_ = true;
    } else {
      metrics_->inter_token_latency.With({model_}).Observe(
          std::chrono::duration<double>(now - last_token_).count());
    }
    last_token_ = now;
  }
  // Only the closing events carry counts; parse just those.
  if (data.find("\"usage\"") != std::string_view::npos ||
      data.find("\"timings\"") != std::string_view::npos) {
    TokenUsage usage = ParseTokenUsage(data);
    if (usage.found && (!usage_.found || data.find("\"usage\"") != std::string_view::npos)) {
      usage_ = usage;
    }
  }
}

void RequestObserver::OnBody(std::string_view body) {
  if (metrics_ != nullptr) usage_ = ParseTokenUsage(body);
}

void RequestObserver::Finish(int status) {
  if (metrics_ == nullptr) return;
  metrics_->requests.With({endpoint_, model_, std::to_string(status)}).Inc();
  if (model_.empty()) return;
  metrics_->duration.With({endpoint_, model_})
      .Observe(std::chrono::duration<double>(Clock::now() - start_).count());
  if (usage_.found) {
    metrics_->prompt_tokens.With({model_}).Inc(static_cast<double>(usage_.prompt));
    metrics_->completion_tokens.With({model_}).Inc(static_cast<double>(usage_.completion));
    metrics_->cached_tokens.With({model_}).Inc(static_cast<double>(usage_.cached));
  }
}

}  // namespace zest::api
