// OpenAiApi's rerank route: POST /v1/rerank (rerank_request.h), on a
// reranker model's engine, through the same admission, keys and metrics as
// chat (one request in the queue, whatever the number of documents).
#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/openai/openai_api.h"
#include "api/openai/rerank_request.h"
#include "api/request/errors.h"
#include "relay/answer_translator.h"
#include "relay/engine_relay.h"
#include "relay/json_text.h"

namespace zest::api::openai {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

awaitable<void> OpenAiApi::Rerank(http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi, "rerank", "", r.principal);
  co_await RerankRoute(r, w, observer);
  observer.Finish(w);
}

awaitable<void> OpenAiApi::RerankRoute(http::Request& r, http::ResponseWriter& w,
                                       relay::RequestObserver& observer) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<std::string> name = StringMember(*body, "model", "", /*required=*/true);
  if (!name.ok()) co_return co_await SendError(w, name.status(), "model");
  Result<RerankRequest> rerank = ParseRerankRequest(*body);
  if (!rerank.ok()) co_return co_await SendError(w, rerank.status());
  auto model = registry_.Find(*name);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  observer.SetModel(model->name);
  if (!model->error.empty()) {
    const Status unreadable =
        Internal("model '" + model->name + "' cannot be loaded: " + model->error);
    co_return co_await SendError(w, unreadable, "model");
  }
  if (!model->info.reranker) {
    const Status not_reranker = InvalidArgument(
        "model '" + model->name +
        "' is not a reranker (a model with rank pooling, such as bge-reranker or Qwen3-Reranker)");
    co_return co_await SendError(w, not_reranker, "model");
  }
  const std::string priority = body->value("priority", "");
  auto relay = EngineJob(r, *model, *name, priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  relay->to_engine = [asked = relay::JsonText(rerank->engine_body)](
                         const engines::EngineAdapter& engine) -> Result<engines::EngineCall> {
    std::optional<std::string> path = engine.PathFor(engines::Capability::kRerank);
    if (!path) {
      return Status(ErrorCode::kUnsupported, std::string(engine.name()) + " does not rerank");
    }
    return engines::EngineCall{*path, "application/json", asked};
  };
  relay->from_engine = [request = *rerank, client = *name](
                           const engines::EngineAdapter&, int status,
                           const std::string& engine_body) -> Result<relay::ApiAnswer> {
    if (status != 200) return relay::EngineErrorStatus(status, engine_body);
    const json answer = json::parse(engine_body, nullptr, /*allow_exceptions=*/false);
    ZEST_ASSIGN_OR_RETURN(json out, RerankAnswer(request, client, answer));
    return relay::ApiAnswer{200, "application/json", relay::JsonText(out)};
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

}  // namespace zest::api::openai
