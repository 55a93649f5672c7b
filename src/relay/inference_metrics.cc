#include "relay/inference_metrics.h"

#include <nlohmann/json.hpp>

namespace zest::relay {
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

std::optional<uint64_t> CountAt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

std::optional<double> PositiveAt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() <= 0) return std::nullopt;
  return it->get<double>();
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
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
    : requests(r.AddCounter("zest_requests_total",
                            "Inference requests by API, endpoint, model and status.",
                            {"api", "endpoint", "model", "status"})),
      duration(r.AddHistogram("zest_request_duration_seconds",
                              "End-to-end latency of inference requests.",
                              {"api", "endpoint", "model"})),
      // Seen where the engine streams: streamed requests and the non-streamed
      // ones zest assembles from a stream (relay/stream_assembly.h).
      time_to_first_token(r.AddHistogram("zest_time_to_first_token_seconds",
                                         "Time from request to the first generated text.",
                                         {"model"})),
      inter_token_latency(r.AddHistogram("zest_inter_token_latency_seconds",
                                         "Time between generated tokens.", {"model"},
                                         TokenGapBuckets())),
      prompt_tokens(
          r.AddCounter("zest_prompt_tokens_total", "Prompt tokens processed.", {"model"})),
      completion_tokens(
          r.AddCounter("zest_completion_tokens_total", "Tokens generated.", {"model"})),
      cached_tokens(r.AddCounter("zest_cached_tokens_total",
                                 "Prompt tokens served from the KV cache.", {"model"})),
      queue_wait(r.AddHistogram("zest_queue_wait_seconds",
                                "Time requests waited in zest's queue for a slot.",
                                {"model", "priority"})),
      rejections(r.AddCounter("zest_rejections_total",
                              "Requests turned away before reaching an engine, by reason.",
                              {"model", "reason"})),
      failures(r.AddCounter("zest_request_failures_total",
                            "Admitted requests that failed, by the phase they failed in.",
                            {"model", "phase"})),
      engine_breaks(
          r.AddCounter("zest_engine_breaks_total",
                       "Engines that broke off a request, by phase and what zest did then.",
                       {"model", "phase", "then"})),
      prompt_processing(r.AddHistogram("zest_prompt_processing_seconds",
                                       "Engine time spent on the prompt (llama-server timings).",
                                       {"model"})),
      audio_seconds(r.AddCounter("zest_audio_seconds_total",
                                 "Seconds of audio transcribed or translated.", {"model"})),
      realtime_factor(r.AddHistogram(
          "zest_audio_realtime_factor",
          "Request time over the audio's length, per transcription (below 1: faster than "
          "real time).",
          {"model"}, {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5})),
      speech_seconds(
          r.AddCounter("zest_speech_seconds_total", "Seconds of audio spoken.", {"model"})),
      speech_characters(
          r.AddCounter("zest_speech_characters_total", "Characters of text spoken.", {"model"})),
      speech_realtime(r.AddHistogram(
          "zest_speech_realtime_factor",
          "Request time over the spoken audio's length, per speech request (below 1: faster "
          "than real time).",
          {"model"}, {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10})),
      images(r.AddCounter("zest_images_generated_total", "Images generated.", {"model"})),
      seconds_per_image(r.AddHistogram("zest_image_seconds", "Request time per generated image.",
                                       {"model"}, {0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300})),
      spec_drafted(r.AddCounter("zest_spec_drafted_tokens_total",
                                "Tokens drafted by speculative decoding (llama-server timings).",
                                {"model"})),
      spec_accepted(r.AddCounter("zest_spec_accepted_tokens_total",
                                 "Drafted tokens the model accepted.", {"model"})) {}

void InferenceMetrics::SetLast(const std::string& principal, RequestStats stats) {
  MutexLock lock(last_mu_);
  last_by_principal_[principal] = stats;
  last_ = std::move(stats);
}

std::optional<RequestStats> InferenceMetrics::Last() const {
  MutexLock lock(last_mu_);
  return last_;
}

std::optional<RequestStats> InferenceMetrics::LastOf(const std::string& principal) const {
  MutexLock lock(last_mu_);
  auto it = last_by_principal_.find(principal);
  if (it == last_by_principal_.end()) return std::nullopt;
  return it->second;
}

TokenUsage ParseTokenUsage(std::string_view text) {
  return TokenUsageOf(json::parse(text, nullptr, /*allow_exceptions=*/false));
}

TokenUsage TokenUsageOf(const json& doc) {
  TokenUsage usage;
  if (!doc.is_object()) return usage;
  auto t = doc.find("timings");
  bool has_timings = t != doc.end() && t->is_object();
  if (has_timings) {
    usage.prompt_ms = PositiveAt(*t, "prompt_ms");
    usage.prompt_per_second = PositiveAt(*t, "prompt_per_second");
    usage.predicted_ms = PositiveAt(*t, "predicted_ms");
    usage.predicted_per_second = PositiveAt(*t, "predicted_per_second");
    usage.draft_n = CountAt(*t, "draft_n");
    usage.draft_accepted = CountAt(*t, "draft_n_accepted");
  }
  if (auto u = doc.find("usage"); u != doc.end() && u->is_object()) {
    usage.prompt = UintAt(*u, "prompt_tokens");
    usage.completion = UintAt(*u, "completion_tokens");
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object()) {
      usage.cached = UintAt(*d, "cached_tokens");
    }
    usage.found = true;
  } else if (has_timings) {
    usage.cached = UintAt(*t, "cache_n");
    usage.prompt = UintAt(*t, "prompt_n") + usage.cached;
    usage.completion = UintAt(*t, "predicted_n");
    usage.found = true;
  }
  return usage;
}

std::optional<TokenUsage> EventUsage(std::string_view data) {
  if (data.find("\"usage\"") == std::string_view::npos &&
      data.find("\"timings\"") == std::string_view::npos) {
    return std::nullopt;
  }
  return ParseTokenUsage(data);
}

std::optional<TokenUsage> EventUsage(EngineEvent& event) {
  if (!event.MayCarryCounts()) return std::nullopt;
  return TokenUsageOf(event.Doc());
}

const char* ApiLabel(Api api) {
  switch (api) {
    case Api::kOpenAi:
      return "openai";
    case Api::kOllama:
      return "ollama";
    case Api::kAnthropic:
      return "anthropic";
  }
  return "openai";
}

RequestObserver::RequestObserver(InferenceMetrics* metrics, Api api, std::string endpoint,
                                 std::string model, std::string principal)
    : metrics_(metrics),
      api_(api),
      endpoint_(std::move(endpoint)),
      model_(std::move(model)),
      principal_(std::move(principal)) {}

void RequestObserver::OnStreamEvent(std::string_view data,
                                    const std::optional<TokenUsage>& parsed) {
  if (metrics_ == nullptr) return;
  if (CarriesText(data)) {
    Clock::time_point now = Clock::now();
    if (!first_token_seen_) {
      ttft_s_ = Seconds(now - start_);
      metrics_->time_to_first_token.With({model_}).Observe(*ttft_s_);
      first_token_seen_ = true;
    } else {
      metrics_->inter_token_latency.With({model_}).Observe(
          std::chrono::duration<double>(now - last_token_).count());
    }
    last_token_ = now;
  }
  // Only the closing events carry counts (EventUsage parses just those).
  if (parsed) {
    TokenUsage usage = *parsed;
    // Timings and usage may come in separate events; keep the timings.
    if (!usage.prompt_ms) usage.prompt_ms = usage_.prompt_ms;
    if (!usage.predicted_per_second) usage.predicted_per_second = usage_.predicted_per_second;
    if (!usage.draft_n) usage.draft_n = usage_.draft_n;
    if (!usage.draft_accepted) usage.draft_accepted = usage_.draft_accepted;
    if (usage.found && (!usage_.found || data.find("\"usage\"") != std::string_view::npos)) {
      usage_ = usage;
    } else {
      usage_.prompt_ms = usage.prompt_ms;
      usage_.predicted_per_second = usage.predicted_per_second;
      usage_.draft_n = usage.draft_n;
      usage_.draft_accepted = usage.draft_accepted;
    }
  }
}

void RequestObserver::OnBody(std::string_view body, const TokenUsage& usage, bool time_first_token,
                             Clock::time_point answered_at) {
  if (metrics_ == nullptr) return;
  usage_ = usage;
  if (!time_first_token || !CarriesText(body)) return;
  const double ttft = Seconds(answered_at - start_) - usage.predicted_ms.value_or(0) / 1000;
  if (ttft <= 0) return;
  ttft_s_ = ttft;
  metrics_->time_to_first_token.With({model_}).Observe(ttft);
}

void RequestObserver::OnAdmitted(std::string_view priority, double waited_s) {
  if (metrics_ != nullptr)
    metrics_->queue_wait.With({model_, std::string(priority)}).Observe(waited_s);
}

void RequestObserver::OnRejected(std::string_view reason) {
  if (metrics_ != nullptr) metrics_->rejections.With({model_, std::string(reason)}).Inc();
}

void RequestObserver::OnEngineBreak(std::string_view phase, std::string_view then) {
  if (metrics_ == nullptr) return;
  metrics_->engine_breaks.With({model_, std::string(phase), std::string(then)}).Inc();
}

void RequestObserver::OnFailed(std::string_view phase) {
  if (metrics_ != nullptr) metrics_->failures.With({model_, std::string(phase)}).Inc();
}

void RequestObserver::Finish(const http::ResponseWriter& writer) {
  Finish(writer.client_gone() && !writer.started() ? 499 : writer.status());
}

void RequestObserver::Finish(int status) {
  if (metrics_ == nullptr) return;
  metrics_->requests.With({ApiLabel(api_), endpoint_, model_, std::to_string(status)}).Inc();
  if (model_.empty()) return;
  Clock::time_point end = Clock::now();
  metrics_->duration.With({ApiLabel(api_), endpoint_, model_}).Observe(Seconds(end - start_));
  if (audio_s_ && *audio_s_ > 0 && status == 200) {
    metrics_->audio_seconds.With({model_}).Inc(*audio_s_);
    metrics_->realtime_factor.With({model_}).Observe(Seconds(end - start_) / *audio_s_);
  }
  if (speech_s_ > 0 && status == 200) {
    metrics_->speech_seconds.With({model_}).Inc(speech_s_);
    metrics_->speech_characters.With({model_}).Inc(static_cast<double>(speech_chars_));
    metrics_->speech_realtime.With({model_}).Observe(Seconds(end - start_) / speech_s_);
  }
  if (images_ > 0 && status == 200) {
    metrics_->images.With({model_}).Inc(images_);
    metrics_->seconds_per_image.With({model_}).Observe(Seconds(end - start_) / images_);
  }
  if (usage_.prompt_ms)
    metrics_->prompt_processing.With({model_}).Observe(*usage_.prompt_ms / 1000);
  if (usage_.draft_n) {
    metrics_->spec_drafted.With({model_}).Inc(static_cast<double>(*usage_.draft_n));
    metrics_->spec_accepted.With({model_}).Inc(
        static_cast<double>(usage_.draft_accepted.value_or(0)));
  }
  if (!usage_.found) return;
  metrics_->prompt_tokens.With({model_}).Inc(static_cast<double>(usage_.prompt));
  metrics_->completion_tokens.With({model_}).Inc(static_cast<double>(usage_.completion));
  metrics_->cached_tokens.With({model_}).Inc(static_cast<double>(usage_.cached));
  if (status == 200) metrics_->SetLast(principal_, Stats(end));
}

RequestStats RequestObserver::Stats(Clock::time_point end) const {
  RequestStats s;
  s.model = model_;
  s.api = ApiLabel(api_);
  s.endpoint = endpoint_;
  s.stream = stream_;
  s.time_to_first_token_s = ttft_s_;
  if (usage_.prompt_ms) s.prompt_processing_s = *usage_.prompt_ms / 1000;
  s.duration_s = Seconds(end - start_);
  s.prompt_tokens = usage_.prompt;
  s.completion_tokens = usage_.completion;
  s.cached_tokens = usage_.cached;
  s.draft_tokens = usage_.draft_n;
  if (usage_.draft_n) s.accepted_tokens = usage_.draft_accepted.value_or(0);
  // The engine's own generation speed when it reports one, else what zest
  // saw: tokens over the time from the first token to the end.
  s.tokens_per_second = usage_.predicted_per_second;
  double generating = ttft_s_ ? Seconds(end - start_) - *ttft_s_ : 0;
  if (!s.tokens_per_second && generating > 0 && usage_.completion > 1) {
    s.tokens_per_second = static_cast<double>(usage_.completion - 1) / generating;
  }
  return s;
}

}  // namespace zest::relay
