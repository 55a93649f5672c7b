#include "api/anthropic/anthropic_api.h"

#include <nlohmann/json.hpp>

#include "api/admit_request.h"
#include "api/anthropic/messages_answer.h"
#include "api/anthropic/messages_request.h"
#include "api/json_body.h"
#include "api/request/errors.h"
#include "http/request_id.h"

namespace zest::api::anthropic {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

// Anthropic's error shape, with the status every API maps zest's errors to.
awaitable<void> SendAnthropicError(http::ResponseWriter& w, const Status& status,
                                   std::string_view /*param*/, const http::Headers& headers) {
  const int http = api::MapStatus(status).http_status;
  const std::string body = ErrorBody(http, status.message());
  co_await w.Send(http, "application/json", body, headers);
}

awaitable<void> SendError(http::ResponseWriter& w, const Status& status) {
  static const http::Headers kNone;
  co_await SendAnthropicError(w, status, "", kNone);
}

// The request's model, or the 404 Anthropic's clients expect.
Result<models::ModelEntry> FindModel(models::ModelRegistry& registry, const std::string& name) {
  Result<models::ModelEntry> model = registry.Find(name);
  if (!model.ok() && model.status().code() == ErrorCode::kNotFound) {
    return NotFound("model: " + name + " (not found)");
  }
  return model;
}

}  // namespace

awaitable<void> AnthropicApi::Messages(http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kAnthropic, "anthropic_messages", "",
                                  r.principal);
  Result<json> body = ParseJsonObject(r.body);
  Result<engines::ChatRequest> request =
      body.ok() ? ParseMessagesRequest(*body) : Result<engines::ChatRequest>(body.status());
  Result<models::ModelEntry> model = request.ok() ? FindModel(registry_, request->model)
                                                  : Result<models::ModelEntry>(request.status());
  if (!model.ok()) {
    co_await SendError(w, model.status());
  } else {
    ChatJob job;
    job.model = std::move(*model);
    job.translator =
        std::make_shared<MessagesAnswer>(request->model, "msg_" + http::RequestIdFor(""));
    job.send_error = SendAnthropicError;
    job.request = std::move(*request);
    job.session = SessionOf(*body);
    co_await RunChatJob(engines_, options_, r, w, observer, std::move(job));
  }
  observer.Finish(w);
}

// The engine counts: it applies the model's chat template to the request
// and tokenizes the result. The request is checked as a Messages request
// first, so that its errors are zest's.
awaitable<void> AnthropicApi::CountTokens(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<engines::ChatRequest> job = ParseMessagesRequest(*body, /*count_only=*/true);
  if (!job.ok()) co_return co_await SendError(w, job.status());
  Result<models::ModelEntry> model = FindModel(registry_, job->model);
  if (!model.ok()) co_return co_await SendError(w, model.status());
  if (Status capable = CheckCapability(engines::Capability::kChat, *model); !capable.ok()) {
    co_return co_await SendError(w, capable);
  }
  Result<relay::RelayRequest> relay =
      AdmittedRelay(r, *model, job->model, job->priority, options_.queue_timeout, nullptr);
  if (!relay.ok()) co_return co_await SendError(w, relay.status());
  relay->admit.cost = 1;
  relay->send_error = SendAnthropicError;
  // The engine counts the typed request, as its adapter writes it for the
  // engine's model: the conversation zest would send it to generate.
  relay->to_engine = [request = std::move(*job),
                      engine_model = model->name](const engines::EngineAdapter& engine) {
    return engine.TokenCountCall(request, engine_model);
  };
  relay->from_engine = [](const engines::EngineAdapter& engine, int status,
                          const std::string& engine_body) -> Result<relay::ApiAnswer> {
    if (status != 200) return relay::EngineErrorStatus(status, engine_body);
    ZEST_ASSIGN_OR_RETURN(uint64_t tokens, engine.ReadTokenCount(status, engine_body));
    return relay::ApiAnswer{200, "application/json", json{{"input_tokens", tokens}}.dump()};
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

void AnthropicApi::Register(http::Router& router) {
  router.Add("POST", "/v1/messages",
             [this](http::Request& r, http::ResponseWriter& w) { return Messages(r, w); });
  router.Add("POST", "/v1/messages/count_tokens",
             [this](http::Request& r, http::ResponseWriter& w) { return CountTokens(r, w); });
}

}  // namespace zest::api::anthropic
