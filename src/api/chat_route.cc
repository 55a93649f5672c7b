#include "api/chat_route.h"

#include <algorithm>

#include "api/admit_request.h"
#include "api/chat_audio.h"
#include "api/key_scope.h"
#include "api/model_preset.h"
#include "api/request/errors.h"
#include "api/request/tool_choice.h"
#include "api/session_key.h"

namespace zest::api {

using engines::Capability;

Status CheckCapability(Capability kind, const models::ModelEntry& model) {
  // A model file zest cannot read is the server's problem, not the client's.
  if (!model.error.empty()) {
    return Internal("model '" + model.name + "' cannot be loaded: " + model.error);
  }
  if (model.info.speech) {
    return InvalidArgument("model '" + model.name +
                           "' is a speech-to-text model; use /v1/audio/transcriptions");
  }
  if (model.info.image) {
    return InvalidArgument("model '" + model.name +
                           "' is an image generation model; use /v1/images/generations");
  }
  if (model.info.tts) {
    return InvalidArgument("model '" + model.name +
                           "' is a text-to-speech model; use /v1/audio/speech");
  }
  if (model.info.reranker) {
    return InvalidArgument("model '" + model.name + "' is a reranker; use /v1/rerank");
  }
  // Embedding engines run with --embeddings, which turns off generation,
  // and the reverse; so a model serves one kind of endpoint.
  bool wants_embeddings = kind == Capability::kEmbeddings;
  if (wants_embeddings && !model.info.embedding) {
    return InvalidArgument("model '" + model.name + "' is not an embedding model");
  }
  if (!wants_embeddings && model.info.embedding) {
    return InvalidArgument("model '" + model.name + "' is an embedding model; use /v1/embeddings");
  }
  return Status::Ok();
}

Status PrepareChatJob(const ChatRouteOptions& options, ChatJob& job, std::string* param) {
  engines::ChatRequest& request = job.request;
  if (Status capable = CheckCapability(request.kind, job.model); !capable.ok()) {
    *param = "model";
    return capable;
  }
  if (Status sees = CheckVision(job.model, request); !sees.ok()) {
    *param = "messages";
    return sees;
  }
  ApplyPreset(job.model, request);
  // The same bounds for every API, and for what a preset added.
  ZEST_RETURN_IF_ERROR(CheckLimits(request, options.limits, param));
  if (Status forced = ForceNamedTool(request); !forced.ok()) {
    *param = "tool_choice";
    return forced;
  }
  // Without a limit the engine would generate until the context is full.
  if (!request.max_tokens && request.kind != Capability::kEmbeddings) {
    request.max_tokens = options.default_max_tokens;
  }
  return Status::Ok();
}

boost::asio::awaitable<void> RunChatJob(relay::EngineServices engines,
                                        const ChatRouteOptions& options, http::Request& request,
                                        http::ResponseWriter& writer,
                                        relay::RequestObserver& observer, ChatJob job) {
  observer.SetModel(job.model.name);
  observer.SetStream(job.request.stream);
  static const http::Headers kNone;
  const relay::ErrorSender send =
      job.send_error != nullptr ? job.send_error : static_cast<relay::ErrorSender>(&SendError);
  std::string param;
  if (Status ready = PrepareChatJob(options, job, &param); !ready.ok()) {
    co_return co_await send(writer, ready, param, kNone);
  }
  if (CountImages(job.request) > 0) {
    if (options.images == nullptr) {
      co_return co_await send(writer,
                              Status(ErrorCode::kUnsupported, "this server takes no images"),
                              "messages", kNone);
    }
    const engines::ImageConverter* converter =
        engines.engines != nullptr ? engines.engines->image_converter() : nullptr;
    Status images = co_await options.images->Prepare(job.request, converter, &param);
    if (!images.ok()) co_return co_await send(writer, images, param, kNone);
  }
  if (CountAudio(job.request) > 0) {  // measured before it is admitted (api/chat_audio.h)
    const engines::AudioConverter* converter =
        engines.engines != nullptr ? engines.engines->audio_converter() : nullptr;
    Status audio = co_await PrepareChatAudio(job.request, converter, &param);
    if (!audio.ok()) co_return co_await send(writer, audio, param, kNone);
  }
  Result<relay::RelayRequest> relay =
      AdmittedRelay(request, std::move(job.model), job.request.model, job.request.priority,
                    options.queue_timeout, &observer);
  if (!relay.ok()) co_return co_await send(writer, relay.status(), "priority", kNone);
  relay->keep_alive = AllowedKeepAlive(request, job.request.keep_alive, options.max_keep_alive);
  std::string session(ClientSession(request, job.session));
  if (session.empty()) session = OpeningSession(job.request);
  relay->session = ScopedSessionKey(request.principal, session);
  if (!options.share_prompt_cache) relay->cache_owner = request.principal;
  // Else OpenAI's, from AdmittedRelay.
  if (job.send_error != nullptr) relay->send_error = job.send_error;
  if (job.translator != nullptr) relay->translator = std::move(job.translator);
  relay->stream = job.request.stream;
  // A slot for each sequence the engine runs (n answers, a list of prompts).
  relay->admit.slots = static_cast<int>(std::min<int64_t>(engines::Sequences(job.request), 1024));
  relay->chat = std::make_shared<const engines::ChatRequest>(std::move(job.request));
  co_await relay::RelayToEngine(engines, std::move(*relay), writer);
}

}  // namespace zest::api
