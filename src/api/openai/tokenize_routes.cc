// OpenAiApi's tokenizer routes: POST /v1/tokenize ({"model", "content"
// (or "prompt"), "add_special", "with_pieces"} → {"model", "tokens",
// "count"}) and POST /v1/detokenize ({"model", "tokens"} → {"model",
// "content"}), with the model's own tokenizer, which lives in its engine:
// the model is loaded for them, through the same admission, keys and
// metrics as chat (one request each in the queue).
#include <nlohmann/json.hpp>

#include "api/chat_route.h"
#include "api/json_body.h"
#include "api/openai/openai_api.h"
#include "api/request/errors.h"
#include "relay/answer_translator.h"
#include "relay/engine_relay.h"
#include "relay/json_text.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

// The engine's request body for `body` (kInvalidArgument naming the field).
Result<json> TokenizerBody(bool detokenize, const json& body) {
  if (detokenize) {
    const json tokens = body.value("tokens", json());
    if (!tokens.is_array() || !std::all_of(tokens.begin(), tokens.end(), [](const json& t) {
          return t.is_number_integer() && t.get<int64_t>() >= 0;
        })) {
      return InvalidArgument("tokens must be a list of token ids");
    }
    return json{{"tokens", tokens}};
  }
  const json content = body.contains("content") ? body["content"] : body.value("prompt", json());
  if (!content.is_string()) return InvalidArgument("content must be a string");
  json out = {{"content", content}};
  for (const char* key : {"add_special", "with_pieces"}) {
    if (auto it = body.find(key); it != body.end() && !it->is_null()) {
      if (!it->is_boolean()) return InvalidArgument(std::string(key) + " must be true or false");
      out[key] = *it;
    }
  }
  return out;
}

}  // namespace

awaitable<void> OpenAiApi::Tokenize(bool detokenize, http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi,
                                  detokenize ? "detokenize" : "tokenize", "", r.principal);
  co_await TokenizeRoute(detokenize, r, w, observer);
  observer.Finish(w);
}

awaitable<void> OpenAiApi::TokenizeRoute(bool detokenize, http::Request& r, http::ResponseWriter& w,
                                         relay::RequestObserver& observer) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<std::string> name = StringMember(*body, "model", "", /*required=*/true);
  if (!name.ok()) co_return co_await SendError(w, name.status(), "model");
  Result<json> engine_body = TokenizerBody(detokenize, *body);
  if (!engine_body.ok()) co_return co_await SendError(w, engine_body.status());
  auto model = registry_.Find(*name);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  observer.SetModel(model->name);
  // Any model with a tokenizer zest serves text with: generating or embedding.
  if (Status capable = CheckCapability(
          model->info.embedding ? engines::Capability::kEmbeddings : engines::Capability::kChat,
          *model);
      !capable.ok()) {
    co_return co_await SendError(w, capable, "model");
  }
  const std::string priority = body->value("priority", "");
  auto relay = EngineJob(r, *model, *name, priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  const engines::Capability capability =
      detokenize ? engines::Capability::kDetokenize : engines::Capability::kTokenize;
  relay->to_engine = [capability, asked = relay::JsonText(*engine_body)](
                         const engines::EngineAdapter& engine) -> Result<engines::EngineCall> {
    std::optional<std::string> path = engine.PathFor(capability);
    if (!path) {
      return Status(ErrorCode::kUnsupported,
                    std::string(engine.name()) + " has no tokenizer route");
    }
    return engines::EngineCall{*path, "application/json", asked};
  };
  relay->from_engine = [detokenize, client = *name](
                           const engines::EngineAdapter&, int status,
                           const std::string& engine_body) -> Result<relay::ApiAnswer> {
    if (status != 200) return relay::EngineErrorStatus(status, engine_body);
    json answer = json::parse(engine_body, nullptr, /*allow_exceptions=*/false);
    const char* key = detokenize ? "content" : "tokens";
    if (!answer.is_object() || !answer.contains(key)) {
      return EngineFailed("the engine's tokenizer answer has no " + std::string(key));
    }
    answer["model"] = client;
    if (!detokenize && answer["tokens"].is_array()) answer["count"] = answer["tokens"].size();
    return relay::ApiAnswer{200, "application/json", relay::JsonText(answer)};
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

}  // namespace zest::api::openai
