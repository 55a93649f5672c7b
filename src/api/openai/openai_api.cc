#include "api/openai/openai_api.h"

#include <map>
#include <set>

#include "api/admit_request.h"
#include "api/chat_route.h"
#include "api/engine_relay.h"
#include "api/json_body.h"
#include "api/json_text.h"
#include "api/key_scope.h"
#include "api/model_preset.h"
#include "api/request/errors.h"
#include "api/openai/model_json.h"
#include "api/openai/request_parse.h"
#include "api/openai/tool_choice.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

std::set<std::string> LoadedModels(scheduler::InstancePool& pool) {
  std::set<std::string> loaded;
  for (const auto& s : pool.List()) {
    if (s.state == "ready") loaded.insert(s.model);
  }
  return loaded;
}

awaitable<void> SendJson(http::ResponseWriter& w, const nlohmann::json& j) {
  co_await w.Send(200, "application/json", j.dump());
}

// `?all=true`: the catalog is listed beside the servable models.
bool WantsAll(const std::string& query) {
  return ("&" + query + "&").find("&all=true&") != std::string::npos;
}

// Servable models get `downloaded` (and their catalog labels); catalog
// entries not already listed under their name are added.
void AddCatalog(const std::vector<models::CatalogStatus>& catalog, nlohmann::json& data) {
  std::map<std::string, const models::CatalogStatus*> by_name;
  for (const auto& c : catalog) by_name[c.entry.name] = &c;
  std::set<std::string> listed;
  for (nlohmann::json& m : data) {
    m["downloaded"] = true;
    listed.insert(m["id"].get<std::string>());
    auto it = by_name.find(m.value("catalog", std::string()));
    if (it == by_name.end()) continue;
    m["labels"] = it->second->entry.labels;
    m["recipe"] = it->second->entry.recipe;
  }
  for (const auto& c : catalog) {
    if (!listed.contains(c.entry.name)) data.push_back(CatalogJson(c));
  }
}

// Bounded label values for metrics.
std::string EndpointLabel(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kChatCompletions:
      return "chat_completions";
    case Endpoint::kCompletions:
      return "completions";
    case Endpoint::kEmbeddings:
      return "embeddings";
  }
  return "other";
}

}  // namespace

awaitable<void> OpenAiApi::Inference(Endpoint endpoint, http::Request& r, http::ResponseWriter& w) {
  RequestObserver observer(metrics_, Api::kOpenAi, EndpointLabel(endpoint), "");
  co_await Route(endpoint, r, w, observer);
  observer.Finish(w);
}

// Parse, validate, resolve the model, relay: the whole of an inference request.
awaitable<void> OpenAiApi::Route(Endpoint endpoint, http::Request& r, http::ResponseWriter& w,
                                 RequestObserver& observer) {
  std::string param;
  auto parsed = ParseInferenceRequest(endpoint, r.body, &param, options_.limits);
  if (!parsed.ok()) co_return co_await SendError(w, parsed.status(), param);
  auto model = registry_.Find(parsed->model);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  observer.SetModel(model->name);
  observer.SetStream(parsed->stream);
  if (Status st = CheckCapability(endpoint, *model); !st.ok()) {
    co_return co_await SendError(w, st, "model");
  }
  // A preset: its defaults into the body, checked again (its token limit
  // too), and from here on its base model, whose engine and queue run it.
  if (model->preset) {
    Result<nlohmann::json> doc = ParseJsonObject(r.body);
    if (!doc.ok()) co_return co_await SendError(w, doc.status(), "");
    ApplyPreset(*model, *doc);
    r.body = JsonText(*doc);
    parsed = ParseInferenceRequest(endpoint, r.body, &param, options_.limits);
    if (!parsed.ok()) co_return co_await SendError(w, parsed.status(), param);
  }
  auto admit = Admission(r, *parsed, model->name);
  if (!admit.ok()) co_return co_await SendError(w, admit.status(), "priority");
  const std::optional<Duration> keep_alive =
      AllowedKeepAlive(r, parsed->keep_alive, options_.max_keep_alive);
  if (parsed->names_a_tool) {
    Result<std::string> forced = WithNamedToolForced(r.body);
    if (!forced.ok()) co_return co_await SendError(w, forced.status(), "tool_choice");
    r.body = std::move(*forced);
  }
  // Without a limit the engine would generate until the context is full.
  if (!parsed->max_tokens_given && endpoint != Endpoint::kEmbeddings) {
    r.body = WithMaxTokens(std::move(r.body), options_.default_max_tokens);
  }
  RelayRequest relay;
  relay.model = *model;
  relay.engine_path = EnginePath(endpoint);
  relay.body = std::move(r.body);
  relay.stream = parsed->stream;
  relay.observer = &observer;
  relay.admit = *admit;
  relay.client_model = parsed->model;
  relay.keep_alive = keep_alive;
  relay.request_id = r.id;
  co_await RelayToEngine(engines_, std::move(relay), w);
}

Result<RelayRequest> OpenAiApi::EngineJob(const http::Request& r, const models::ModelEntry& model,
                                          const std::string& client_model,
                                          const std::string& priority,
                                          RequestObserver& observer) const {
  InferenceRequest asked;
  asked.model = client_model;
  asked.priority = priority;
  ZEST_ASSIGN_OR_RETURN(scheduler::AdmitRequest admit, Admission(r, asked, model.name));
  admit.cost = 1;
  RelayRequest relay;
  relay.model = model;
  relay.observer = &observer;
  relay.admit = std::move(admit);
  relay.client_model = client_model;
  relay.request_id = r.id;
  return relay;
}

// Who waits how (admit_request.h), with the server's default queue timeout.
Result<scheduler::AdmitRequest> OpenAiApi::Admission(const http::Request& r,
                                                     const InferenceRequest& parsed,
                                                     const std::string& model) const {
  return AdmitRequestFor(r, parsed.priority, model, options_.queue_timeout);
}

// Every servable model (and, with `all`, the catalog), each with whether
// this machine can run it: planned from its GGUF header when it is here,
// estimated from the catalog's size when not.
nlohmann::json OpenAiApi::ListJson(bool all) {
  std::set<std::string> loaded = LoadedModels(engines_.pool);
  nlohmann::json data = nlohmann::json::array();
  for (const auto& m : registry_.List()) {
    nlohmann::json j = ModelJson(m, loaded.contains(m.name));
    if (m.error.empty()) AddFit(j, engines_.pool.Fit(m));
    if (std::vector<std::string> aliases = registry_.AliasesOf(m.name); !aliases.empty()) {
      j["aliases"] = aliases;  // the names and patterns that stand for it
    }
    data.push_back(std::move(j));
  }
  if (!all) return data;
  AddCatalog(registry_.ListCatalog(), data);
  for (nlohmann::json& j : data) {
    if (j.contains("fit") || j.value("source", std::string()) != "catalog") continue;
    AddFit(j, engines_.pool.FitOfSize(j.value("size", uint64_t{0})));
  }
  return data;
}

void OpenAiApi::Register(http::Router& router) {
  auto list = [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
    nlohmann::json data = ListJson(WantsAll(r.query));
    nlohmann::json reply = {{"object", "list"}, {"data", data}};
    co_await SendJson(w, reply);
  };
  auto get = [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
    auto model = registry_.Find(r.params.at(0));
    if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
    nlohmann::json reply = ModelJson(*model, LoadedModels(engines_.pool).contains(model->name));
    if (model->error.empty()) AddFit(reply, engines_.pool.Fit(*model));
    co_await SendJson(w, reply);
  };
  auto inference = [this](Endpoint endpoint) {
    return [this, endpoint](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
      co_await Inference(endpoint, r, w);
    };
  };
  for (std::string prefix : {"/v1", "/api/v1"}) {
    router.Add("GET", prefix + "/models", list);
    router.Add("GET", prefix + "/models/{id...}", get);
    router.Add("POST", prefix + "/chat/completions", inference(Endpoint::kChatCompletions));
    router.Add("POST", prefix + "/completions", inference(Endpoint::kCompletions));
    router.Add("POST", prefix + "/embeddings", inference(Endpoint::kEmbeddings));
    for (bool detokenize : {false, true}) {
      router.Add("POST", prefix + (detokenize ? "/detokenize" : "/tokenize"),
                 [this, detokenize](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
                   co_await Tokenize(detokenize, r, w);
                 });
    }
    router.Add("POST", prefix + "/rerank",
               [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
                 co_await Rerank(r, w);
               });
    router.Add("POST", prefix + "/images/generations",
               [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
                 co_await GenerateImages(r, w);
               });
    for (bool translate : {false, true}) {
      router.Add(
          "POST", prefix + (translate ? "/audio/translations" : "/audio/transcriptions"),
          [this, translate](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
            co_await Transcribe(translate, r, w);
          },
          http::BodyKind::kOther);
    }
  }
}

}  // namespace zest::api::openai
