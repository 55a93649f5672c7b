// InferenceMetrics: the metric families inference requests update, and
// RequestObserver, which watches one request on its way through the relay
// and records its latency distribution and token counts from real events
// (time to the first generated text, gaps between streamed tokens, the
// engine's own usage/timings fields).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "http/response_writer.h"
#include "metrics/registry.h"
#include "relay/engine_event.h"

namespace zest::relay {

// The API a request came in by (the `api` label): OpenAI's (every /v1
// route but Messages: chat, completions, embeddings, responses, audio,
// images, tokenize), Ollama's (/api/*) or Anthropic's (/v1/messages).
enum class Api { kOpenAi, kOllama, kAnthropic };
const char* ApiLabel(Api api);

// The last finished inference request, as GET /api/v1/stats shows it.
struct RequestStats {
  std::string model;
  std::string api;  // ApiLabel
  std::string endpoint;
  bool stream = false;
  std::optional<double> time_to_first_token_s;  // streamed from the engine (stream_assembly.h too)
  std::optional<double> prompt_processing_s;    // the engine's timings.prompt_ms
  std::optional<double> tokens_per_second;      // generation speed
  double duration_s = 0;
  uint64_t prompt_tokens = 0;
  uint64_t completion_tokens = 0;
  uint64_t cached_tokens = 0;
  // Speculative decoding: tokens drafted and the ones the model accepted
  // (llama-server's timings.draft_n / draft_n_accepted); unset without it.
  std::optional<uint64_t> draft_tokens;
  std::optional<uint64_t> accepted_tokens;
};

struct InferenceMetrics {
  explicit InferenceMetrics(metrics::Registry& registry);

  // The last successful request's stats, of anyone's (Last) or of one
  // key's (LastOf: an inference key sees only its own requests); nullopt
  // before the first. `principal` is the key's name, "" without keys. Any
  // thread.
  void SetLast(const std::string& principal, RequestStats stats);
  std::optional<RequestStats> Last() const;
  std::optional<RequestStats> LastOf(const std::string& principal) const;

  metrics::Family<metrics::Counter>& requests;               // api, endpoint, model, status
  metrics::Family<metrics::Histogram>& duration;             // api, endpoint, model
  metrics::Family<metrics::Histogram>& time_to_first_token;  // model
  metrics::Family<metrics::Histogram>& inter_token_latency;  // model
  metrics::Family<metrics::Counter>& prompt_tokens;          // model
  metrics::Family<metrics::Counter>& completion_tokens;      // model
  metrics::Family<metrics::Counter>& cached_tokens;          // model
  metrics::Family<metrics::Histogram>& queue_wait;           // model, priority
  metrics::Family<metrics::Counter>& rejections;             // model, reason
  metrics::Family<metrics::Counter>& failures;               // model, phase
  metrics::Family<metrics::Counter>& engine_breaks;          // model, phase, then
  metrics::Family<metrics::Histogram>& prompt_processing;    // model
  metrics::Family<metrics::Counter>& audio_seconds;          // model
  metrics::Family<metrics::Histogram>& realtime_factor;      // model
  metrics::Family<metrics::Counter>& speech_seconds;         // model
  metrics::Family<metrics::Counter>& speech_characters;      // model
  metrics::Family<metrics::Histogram>& speech_realtime;      // model
  metrics::Family<metrics::Counter>& images;                 // model
  metrics::Family<metrics::Histogram>& seconds_per_image;    // model
  metrics::Family<metrics::Counter>& spec_drafted;           // model
  metrics::Family<metrics::Counter>& spec_accepted;          // model

 private:
  mutable Mutex last_mu_;
  std::optional<RequestStats> last_ GUARDED_BY(last_mu_);
  // One entry per API key that made a request: as many as the key file names.
  std::map<std::string, RequestStats> last_by_principal_ GUARDED_BY(last_mu_);
};

// Token counts an engine reported for one request.
struct TokenUsage {
  uint64_t prompt = 0;
  uint64_t completion = 0;
  uint64_t cached = 0;
  bool found = false;
  // From llama-server's `timings`, when present (with or without `usage`).
  std::optional<double> prompt_ms;
  std::optional<double> prompt_per_second;  // prompt processing speed
  std::optional<double> predicted_ms;       // generating the tokens after the first
  std::optional<double> predicted_per_second;
  // Speculative decoding's drafted and accepted tokens (timings.draft_n,
  // timings.draft_n_accepted), where the engine drafted.
  std::optional<uint64_t> draft_n;
  std::optional<uint64_t> draft_accepted;
};

// Reads OpenAI `usage` (preferred) or llama-server `timings` from one JSON
// answer or stream event; found=false when it has neither.
TokenUsage ParseTokenUsage(std::string_view json);
// The same from a parsed answer or event.
TokenUsage TokenUsageOf(const nlohmann::json& doc);
// ParseTokenUsage of a stream event that may carry counts (the closing
// events: `usage` or `timings`); none for the others, which are not parsed.
std::optional<TokenUsage> EventUsage(std::string_view data);
// The same on the relay's event (engine_event.h): its JSON, parsed here
// only for the events that may carry counts, is the one its other readers
// get.
std::optional<TokenUsage> EventUsage(EngineEvent& event);

// One request's observer. Not thread-safe: used by the request's coroutine.
class RequestObserver {
 public:
  // `metrics` may be null (metrics off). `model` must be a known model name
  // or "" so label values stay bounded. `principal`: whose request it is
  // (http::Request::principal), for the last-request stats.
  RequestObserver(InferenceMetrics* metrics, Api api, std::string endpoint, std::string model,
                  std::string principal);

  void SetModel(std::string model) { model_ = std::move(model); }
  void SetStream(bool stream) { stream_ = stream; }
  // The request got a slot after waiting `waited_s` in its priority class.
  void OnAdmitted(std::string_view priority, double waited_s);
  // The request was turned away before reaching an engine; `reason` is a
  // bounded word: queue_full, deadline, too_large, auth, audio_memory.
  void OnRejected(std::string_view reason);
  // An engine broke off the request (was killed, stopped answering) in
  // `phase` (RelayPhase: before_answer, mid_stream), and `then` what zest
  // did: retried (on a fresh engine), resumed (the stream, on a fresh
  // engine) or failed (the client got an error).
  void OnEngineBreak(std::string_view phase, std::string_view then);
  // The request failed after its admission, in `phase`: loading (no engine
  // could be started or reached), before_answer (engines broke off before
  // the answer's first byte, every try), mid_stream (a stream that could
  // not be resumed).
  void OnFailed(std::string_view phase);
  // An SSE event's data field, as the engine streamed it (also for a
  // non-streamed answer zest assembles from a stream).
  void OnStreamEvent(std::string_view data) { OnStreamEvent(data, EventUsage(data)); }
  // The same with EventUsage(data) read already (the relay shares it with
  // engine_speed.h).
  void OnStreamEvent(std::string_view data, const std::optional<TokenUsage>& usage);
  // A whole (non-streamed) answer body.
  void OnBody(std::string_view body) { OnBody(body, ParseTokenUsage(body), false, Clock::now()); }
  // The same with ParseTokenUsage(body) read already. With
  // `time_first_token` (a short answer the relay asked whole where it would
  // assemble a longer one from a stream, engine_relay.cc), its time to first
  // token is taken from the engine's timings: the time until the answer
  // came (`answered_at`), less the engine's time generating the tokens
  // after the first; as from a stream, only an answer with text has one.
  void OnBody(std::string_view body, const TokenUsage& usage, bool time_first_token,
              std::chrono::steady_clock::time_point answered_at);
  // Speech to text: the transcribed audio's length.
  void OnAudio(double seconds) { audio_s_ = seconds; }
  // Text to speech: the characters spoken and the audio's length.
  void OnSpeech(size_t characters, double seconds) {
    speech_chars_ = characters;
    speech_s_ = seconds;
  }
  // Image generation: how many images the answer holds.
  void OnImages(int count) { images_ = count; }
  // Records the request: status, duration and tokens. Call once.
  void Finish(int status);
  // Finish with the status the client got: `writer`'s, or 499 when the
  // client left before any byte of the answer.
  void Finish(const http::ResponseWriter& writer);

 private:
  RequestStats Stats(std::chrono::steady_clock::time_point end) const;
  using Clock = std::chrono::steady_clock;
  InferenceMetrics* const metrics_;
  const Api api_;
  const std::string endpoint_;
  std::string model_;
  const std::string principal_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_token_{};
  bool first_token_seen_ = false;
  bool stream_ = false;
  std::optional<double> ttft_s_;
  TokenUsage usage_;
  std::optional<double> audio_s_;
  size_t speech_chars_ = 0;
  double speech_s_ = 0;
  int images_ = 0;
};

}  // namespace zest::relay
