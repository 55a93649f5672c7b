#include "api/chat_route.h"

#include "api/admit_request.h"
#include "api/json_text.h"
#include "api/key_scope.h"
#include "api/model_preset.h"
#include "api/openai/tool_choice.h"

namespace zest::api {

Status CheckCapability(openai::Endpoint endpoint, const models::ModelEntry& model) {
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
  if (model.info.reranker) {
    return InvalidArgument("model '" + model.name + "' is a reranker; use /v1/rerank");
  }
  // Embedding engines run with --embeddings, which turns off generation,
  // and the reverse; so a model serves one kind of endpoint.
  bool wants_embeddings = endpoint == openai::Endpoint::kEmbeddings;
  if (wants_embeddings && !model.info.embedding) {
    return InvalidArgument("model '" + model.name + "' is not an embedding model");
  }
  if (!wants_embeddings && model.info.embedding) {
    return InvalidArgument("model '" + model.name + "' is an embedding model; use /v1/embeddings");
  }
  return Status::Ok();
}

boost::asio::awaitable<void> RunChatJob(EngineServices engines, const ChatRouteOptions& options,
                                        http::Request& request, http::ResponseWriter& writer,
                                        RequestObserver& observer, ChatJobSpec job) {
  observer.SetModel(job.model.name);
  observer.SetStream(job.stream);
  static const http::Headers kNone;
  if (Status capable = CheckCapability(job.endpoint, job.model); !capable.ok()) {
    co_return co_await job.send_error(writer, capable, kNone);
  }
  ApplyPreset(job.model, job.body);
  if (Status forced = openai::ForceNamedTool(job.body); !forced.ok()) {
    co_return co_await job.send_error(writer, forced, kNone);
  }
  job.body["model"] = job.model.name;
  job.body["stream"] = job.stream;
  std::string body = JsonText(job.body);
  // The same bounds as an OpenAI request's (messages, max_tokens, depth).
  Result<openai::InferenceRequest> checked =
      openai::ParseInferenceRequest(job.endpoint, body, nullptr, options.limits);
  if (!checked.ok()) co_return co_await job.send_error(writer, checked.status(), kNone);
  // Without a limit the engine would generate until the context is full.
  if (!checked->max_tokens_given) {
    body = openai::WithMaxTokens(std::move(body), options.default_max_tokens);
  }
  Result<scheduler::AdmitRequest> admit =
      AdmitRequestFor(request, job.priority, job.model.name, options.queue_timeout);
  if (!admit.ok()) co_return co_await job.send_error(writer, admit.status(), kNone);
  RelayRequest relay;
  relay.model = std::move(job.model);
  relay.engine_path = openai::EnginePath(job.endpoint);
  relay.body = std::move(body);
  relay.stream = job.stream;
  relay.observer = &observer;
  relay.admit = std::move(*admit);
  relay.client_model = job.client_model;
  relay.keep_alive = AllowedKeepAlive(request, job.keep_alive, options.max_keep_alive);
  relay.request_id = request.id;
  relay.send_error = job.send_error;
  relay.translator = std::move(job.translator);
  co_await RelayToEngine(engines, std::move(relay), writer);
}

}  // namespace zest::api
