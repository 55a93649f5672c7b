// OpenAiApi: the OpenAI-compatible routes, under /v1/ and /api/v1/:
// GET models, GET models/{id}, POST chat/completions, completions,
// embeddings, audio/transcriptions, audio/translations, audio/speech, GET
// audio/voices, images/generations. Handlers parse and
// validate, resolve the model, and hand the request to the engine relay; nothing else.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/chat_route.h"
#include "api/openai/image_request.h"
#include "api/openai/speech_request.h"
#include "core/byte_budget.h"
#include "http/router.h"
#include "models/model_registry.h"
#include "relay/engine_relay.h"
#include "relay/inference_metrics.h"
#include "scheduler/fit_estimates.h"

namespace zest::api::openai {

class OpenAiApi {
 public:
  // What every API's handlers share (chat_route.h): queue wait, request
  // limits, the keep_alive cap, the default answer limit.
  using Options = ChatRouteOptions;

  // All must outlive the router the routes are added to; `fit` says what
  // /v1/models reports as each model's `fit`; `metrics` may be null (no
  // metrics).
  OpenAiApi(models::ModelRegistry& registry, relay::EngineServices engines,
            scheduler::FitEstimates& fit, const Options& options,
            relay::InferenceMetrics* metrics = nullptr)
      : registry_(registry),
        engines_(engines),
        fit_(fit),
        options_(options),
        metrics_(metrics),
        audio_memory_(options.audio_memory_bytes) {}

  void Register(http::Router& router);

 private:
  // The `data` of GET /v1/models (with `all`: the catalog too), each with `fit`.
  nlohmann::json ListJson(bool all);
  // One servable model as /v1/models shows it: ModelJson, its fit, and its
  // context (model_json.h AddContext) from `loaded` (the running models'
  // contexts) or its plan.
  nlohmann::json Describe(const models::ModelEntry& model,
                          const std::map<std::string, uint64_t>& loaded);
  // Chat and text completions, embeddings.
  boost::asio::awaitable<void> Inference(engines::Capability kind, http::Request& request,
                                         http::ResponseWriter& writer);
  boost::asio::awaitable<void> Route(engines::Capability kind, http::Request& request,
                                     http::ResponseWriter& writer,
                                     relay::RequestObserver& observer);
  // Speech to text (audio_routes.cc): transcriptions, or translations into English.
  boost::asio::awaitable<void> Transcribe(bool translate, http::Request& request,
                                          http::ResponseWriter& writer);
  boost::asio::awaitable<void> TranscribeRoute(bool translate, http::Request& request,
                                               http::ResponseWriter& writer,
                                               relay::RequestObserver& observer);
  // Converts the job's audio to WAV when the engines do not decode it.
  boost::asio::awaitable<Status> ConvertAudio(engines::TranscriptionJob& job);

  // Text to speech (speech_routes.cc), and the voices it takes.
  boost::asio::awaitable<void> Speak(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> SpeakRoute(http::Request& request, http::ResponseWriter& writer,
                                          relay::RequestObserver& observer);
  boost::asio::awaitable<void> Voices(http::Request& request, http::ResponseWriter& writer);
  // A 400 for a format (or speed) that needs ffmpeg when zest has none.
  Status CheckSpeechFormat(const SpeechRequest& request) const;
  // The engine's WAV in the format and at the speed asked for, as a body or
  // as SSE events.
  boost::asio::awaitable<Result<relay::ApiAnswer>> SpeechAnswer(
      const engines::EngineAdapter* engine, int status, std::string body, SpeechRequest request,
      relay::RequestObserver* observer, std::string request_id);

  // The model's tokenizer (tokenize_routes.cc): tokenize, or detokenize.
  boost::asio::awaitable<void> Tokenize(bool detokenize, http::Request& request,
                                        http::ResponseWriter& writer);
  boost::asio::awaitable<void> TokenizeRoute(bool detokenize, http::Request& request,
                                             http::ResponseWriter& writer,
                                             relay::RequestObserver& observer);

  // Reranking (rerank_route.cc).
  boost::asio::awaitable<void> Rerank(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> RerankRoute(http::Request& request, http::ResponseWriter& writer,
                                           relay::RequestObserver& observer);

  // Image generation (image_routes.cc).
  boost::asio::awaitable<void> GenerateImages(http::Request& request, http::ResponseWriter& writer);
  boost::asio::awaitable<void> GenerateImagesRoute(http::Request& request,
                                                   http::ResponseWriter& writer,
                                                   relay::RequestObserver& observer);
  // A 400 for a jpeg or webp request when zest cannot convert images.
  Status CheckImageFormat(const ImageRequest& request) const;
  // The engine's answer in OpenAI's shape, its images converted to the
  // format asked for.
  boost::asio::awaitable<Result<relay::ApiAnswer>> ImagesAnswer(
      const engines::EngineAdapter* engine, int status, std::string body, ImageRequest request,
      relay::RequestObserver* observer);

  // The model a speech, transcription or image route names, when it is of
  // the route's kind (`kind` set in its ModelInfo), with the observer told
  // its name: kNotFound; kInternal when it cannot be loaded; kInvalidArgument
  // "model 'M' is not `what`; see GET /v1/models".
  Result<models::ModelEntry> FindModelOfKind(const std::string& name, bool models::ModelInfo::*kind,
                                             std::string_view what,
                                             relay::RequestObserver& observer) const;

  // A job the engine takes in its own shape, one at a time (speech,
  // images): admitted as one request (the queue counts requests, not
  // bytes); the caller sets `to_engine` and `from_engine`. Errors: a bad
  // priority.
  Result<relay::RelayRequest> EngineJob(const http::Request& request,
                                        const models::ModelEntry& model,
                                        const std::string& client_model,
                                        const std::string& priority,
                                        relay::RequestObserver& observer) const;

  models::ModelRegistry& registry_;
  relay::EngineServices engines_;
  scheduler::FitEstimates& fit_;
  const Options options_;
  relay::InferenceMetrics* const metrics_;
  // The audio speech-to-text requests hold, uploaded or decoded, from its
  // conversion until the engine has answered.
  ByteBudget audio_memory_;
};

}  // namespace zest::api::openai
