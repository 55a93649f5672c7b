// OpenAiApi's speech-out routes: POST /v1/audio/speech (OpenAI's shape:
// `model`, `input`, `voice`, `speed`, `instructions`, `response_format`,
// `stream_format`) and GET /v1/audio/voices. The body is checked here
// (speech_request.h); the engine is asked in its own shape by its adapter
// (engines/engine_adapter.h), through the same admission, memory ledger,
// keep-alive, retries and metrics as chat. Engines write WAV; the other
// formats, and speeds other than 1, are made from it by ffmpeg
// (engines/audio_converter.h) on its own threads, after the engine's slot
// is given back. llama-tts writes its audio whole, so `stream_format`
// audio and sse carry it once it is made.
#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "api/openai/openai_api.h"
#include "api/openai/speech_request.h"
#include "api/request/errors.h"
#include "core/base64.h"
#include "core/logging.h"
#include "relay/engine_relay.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

// Audio bytes per speech.audio.delta event.
constexpr size_t kSseAudioChunk = 48 * 1024;

// OpenAI's SSE answer: speech.audio.delta events with base64 audio, then
// speech.audio.done with the usage.
std::string SseAnswer(std::string_view audio, size_t characters, double seconds) {
  std::string out;
  for (size_t at = 0; at < audio.size(); at += kSseAudioChunk) {
    const nlohmann::json delta = {{"type", "speech.audio.delta"},
                                  {"audio", Base64Encode(audio.substr(at, kSseAudioChunk))}};
    out += "data: " + delta.dump() + "\n\n";
  }
  const nlohmann::json done = {
      {"type", "speech.audio.done"},
      {"usage", {{"input_characters", characters}, {"audio_seconds", seconds}}}};
  out += "data: " + done.dump() + "\n\n";
  return out;
}

}  // namespace

awaitable<void> OpenAiApi::Speak(http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi, "speech", "", r.principal);
  co_await SpeakRoute(r, w, observer);
  observer.Finish(w);
}

awaitable<void> OpenAiApi::Voices(http::Request&, http::ResponseWriter& w) {
  nlohmann::json voices = nlohmann::json::array();
  for (const std::string& voice : SpeechVoices()) {
    voices.push_back({{"id", voice}, {"name", voice}, {"speaker", "the model's default"}});
  }
  const std::string body = nlohmann::json{{"object", "list"}, {"data", voices}}.dump();
  co_await w.Send(200, "application/json", body);
}

// Formats other than the engine's own need ffmpeg: refused before the
// request queues when zest has none, naming what to install.
Status OpenAiApi::CheckSpeechFormat(const SpeechRequest& request) const {
  if (request.speed == 1.0 && (request.format == engines::SpeechFormat::kWav ||
                               request.format == engines::SpeechFormat::kPcm)) {
    return Status::Ok();
  }
  const engines::EngineSet* set = engines_.engines;
  const engines::AudioConverter* converter = set ? set->audio_converter() : nullptr;
  Status available =
      converter != nullptr ? converter->Available() : Unavailable("zest has no audio converter");
  if (available.ok()) return available;
  return InvalidArgument(std::string("response_format ") +
                         engines::SpeechFormatName(request.format) +
                         (request.speed != 1.0 ? " at another speed" : "") +
                         " is not available here: " + available.message() +
                         "; wav and pcm at speed 1 need nothing more");
}

awaitable<void> OpenAiApi::SpeakRoute(http::Request& r, http::ResponseWriter& w,
                                      relay::RequestObserver& observer) {
  std::string param;
  auto request = ParseSpeechRequest(r.body, static_cast<size_t>(options_.max_speech_chars), &param);
  if (!request.ok()) co_return co_await SendError(w, request.status(), param);
  if (Status format = CheckSpeechFormat(*request); !format.ok()) {
    co_return co_await SendError(w, format, "response_format");
  }
  auto model =
      FindModelOfKind(request->model, &models::ModelInfo::tts,
                      "a text-to-speech model (NAME.gguf with NAME.vocoder.gguf)", observer);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  observer.SetStream(request->stream != SpeechStream::kNone);
  auto relay = EngineJob(r, *model, request->model, request->priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  engines::SpeechJob job;
  job.text = request->input;
  job.timeout_s = static_cast<int>(options_.queue_timeout.count());
  relay->to_engine = [job = std::move(job)](const engines::EngineAdapter& engine) {
    return engine.SpeechCall(job);
  };
  relay->from_engine_async = [this, asked = *request, &observer, id = r.id](
                                 const engines::EngineAdapter& engine, int status,
                                 std::string body) {
    return SpeechAnswer(&engine, status, std::move(body), asked, &observer, id);
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

awaitable<Result<relay::ApiAnswer>> OpenAiApi::SpeechAnswer(const engines::EngineAdapter* engine,
                                                            int status, std::string body,
                                                            SpeechRequest request,
                                                            relay::RequestObserver* observer,
                                                            std::string request_id) {
  const auto start = std::chrono::steady_clock::now();
  Result<engines::SpeechAudio> audio = engine->ReadSpeech(status, body);
  if (!audio.ok()) co_return audio.status();
  const size_t characters = Utf8Length(request.input);
  const double seconds = audio->seconds / request.speed;
  std::string out;
  if (engines::SpeechNeedsFfmpeg(*audio, request.format, request.speed)) {
    const engines::AudioConverter* converter = engines_.engines->audio_converter();
    std::string wav = std::move(audio->wav);  // named: no temporaries in co_await
    Result<std::string> encoded =
        co_await converter->Encode(std::move(wav), request.format, request.speed);
    if (!encoded.ok()) co_return encoded.status();
    out = std::move(*encoded);
  } else {
    out = engines::SpeechWithoutFfmpeg(*audio, request.format);
  }
  observer->OnSpeech(characters, seconds);
  spdlog::info(
      "{}speech: {} characters, {:.2f} s of audio as {} (speed {}), encoded in {:.0f} ms",
      RequestTag(request_id), characters, seconds, engines::SpeechFormatName(request.format),
      request.speed,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  if (request.stream == SpeechStream::kSse) {
    co_return relay::ApiAnswer{200, "text/event-stream", SseAnswer(out, characters, seconds)};
  }
  co_return relay::ApiAnswer{200, engines::SpeechContentType(request.format), std::move(out)};
}

}  // namespace zest::api::openai
