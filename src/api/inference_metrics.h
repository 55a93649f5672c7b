// InferenceMetrics: the metric families inference requests update, and
// RequestObserver, which watches one request on its way through the relay
// and records its latency distribution and token counts from real events
// (time to the first generated text, gaps between streamed tokens, the
// engine's own usage/timings fields).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "metrics/registry.h"

namespace zest::api {

struct InferenceMetrics {
  explicit InferenceMetrics(metrics::Registry& registry);

  metrics::Family<metrics::Counter>& requests;          // endpoint, model, status
  metrics::Family<metrics::Histogram>& duration;        // endpoint, model
  metrics::Family<metrics::Histogram>& time_to_first_token;  // model
  metrics::Family<metrics::Histogram>& inter_token_latency;  // model
  metrics::Family<metrics::Counter>& prompt_tokens;     // model
  metrics::Family<metrics::Counter>& completion_tokens; // model
  metrics::Family<metrics::Counter>& cached_tokens;     // model
};

// Token counts an engine reported for one request.
struct TokenUsage {
  uint64_t prompt = 0;
  uint64_t completion = 0;
  uint64_t cached = 0;
  bool found = false;
};

// Reads OpenAI `usage` (preferred) or llama-server `timings` from one JSON
// answer or stream event; found=false when it has neither.
TokenUsage ParseTokenUsage(std::string_view json);

// One request's observer. Not thread-safe: used by the request's coroutine.
class RequestObserver {
 public:
  // `metrics` may be null (metrics off). `model` must be a known model name
  // or "" so label values stay bounded.
  RequestObserver(InferenceMetrics* metrics, std::string endpoint, std::string model);

  void SetModel(std::string model) { model_ = std::move(model); }
  // A streamed SSE event's data field.
  void OnStreamEvent(std::string_view data);
  // A whole (non-streamed) answer body.
  void OnBody(std::string_view body);
  // Records the request: status, duration and tokens. Call once.
  void Finish(int status);

 private:
  using Clock = std::chrono::steady_clock;
  InferenceMetrics* const metrics_;
  const std::string endpoint_;
  std::string model_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_token_{};
  bool first_token_seen_ = false;
  TokenUsage usage_;
};

}  // namespace zest::api
