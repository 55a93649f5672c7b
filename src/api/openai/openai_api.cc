#include "api/openai/openai_api.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/admit_request.h"
#include "api/chat_route.h"
#include "api/model_json.h"
#include "api/openai/request_parse.h"
#include "api/request/errors.h"
#include "relay/engine_relay.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using engines::Capability;

// The loaded models, each with the context per sequence its engine runs
// (the smallest, when replicas differ).
std::map<std::string, uint64_t> LoadedContexts(scheduler::InstanceDirectory& instances) {
  std::map<std::string, uint64_t> loaded;
  for (const auto& s : instances.List()) {
    if (s.state != "ready") continue;
    auto [it, added] = loaded.emplace(s.model, s.plan.ctx_per_slot);
    if (!added) it->second = std::min(it->second, s.plan.ctx_per_slot);
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
std::string EndpointLabel(Capability kind) {
  switch (kind) {
    case Capability::kChat:
      return "chat_completions";
    case Capability::kCompletions:
      return "completions";
    case Capability::kEmbeddings:
      return "embeddings";
    default:
      return "other";
  }
}

}  // namespace

awaitable<void> OpenAiApi::Inference(Capability kind, http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi, EndpointLabel(kind), "",
                                  r.principal);
  co_await Route(kind, r, w, observer);
  observer.Finish(w);
}

// Parse and check, resolve the model, then the one chat pipeline
// (chat_route.h) every API's requests take.
awaitable<void> OpenAiApi::Route(Capability kind, http::Request& r, http::ResponseWriter& w,
                                 relay::RequestObserver& observer) {
  std::string param;
  Result<engines::ChatRequest> parsed =
      ParseInferenceRequest(kind, r.body, &param, options_.limits);
  if (!parsed.ok()) co_return co_await SendError(w, parsed.status(), param);
  Result<models::ModelEntry> model = registry_.Find(parsed->model);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  ChatJob job;
  job.model = std::move(*model);
  job.request = std::move(*parsed);
  job.session = TakePromptCacheKey(job.request);
  co_await RunChatJob(engines_, options_, r, w, observer, std::move(job));
}

Result<models::ModelEntry> OpenAiApi::FindModelOfKind(const std::string& name,
                                                      bool models::ModelInfo::*kind,
                                                      std::string_view what,
                                                      relay::RequestObserver& observer) const {
  ZEST_ASSIGN_OR_RETURN(models::ModelEntry model, registry_.Find(name));
  observer.SetModel(model.name);
  if (!model.error.empty()) {
    return Internal("model '" + model.name + "' cannot be loaded: " + model.error);
  }
  if (!(model.info.*kind)) {
    return InvalidArgument("model '" + model.name + "' is not " + std::string(what) +
                           "; see GET /v1/models");
  }
  return model;
}

// A job the engine takes in its own shape, one at a time (speech, images,
// reranking, the tokenizer): admitted as one request (the queue counts
// requests, not bytes).
Result<relay::RelayRequest> OpenAiApi::EngineJob(const http::Request& r,
                                                 const models::ModelEntry& model,
                                                 const std::string& client_model,
                                                 const std::string& priority,
                                                 relay::RequestObserver& observer) const {
  ZEST_ASSIGN_OR_RETURN(
      relay::RelayRequest relay,
      AdmittedRelay(r, model, client_model, priority, options_.queue_timeout, &observer));
  relay.admit.cost = 1;
  return relay;
}

nlohmann::json OpenAiApi::Describe(const models::ModelEntry& model,
                                   const std::map<std::string, uint64_t>& loaded) {
  const auto running = loaded.find(model.name);
  nlohmann::json j = ModelJson(model, running != loaded.end());
  if (!model.error.empty()) return j;
  const std::optional<placement::ModelFit> fit = fit_.Fit(model);
  AddFit(j, fit);
  const uint64_t context = running != loaded.end() ? running->second : fit ? fit->ctx_per_slot : 0;
  AddContext(j, context, options_.limits.max_tokens);
  return j;
}

// Every servable model (and, with `all`, the catalog), each with whether
// this machine can run it: planned from its GGUF header when it is here,
// estimated from the catalog's size when not.
nlohmann::json OpenAiApi::ListJson(bool all) {
  const std::map<std::string, uint64_t> loaded = LoadedContexts(engines_.instances);
  nlohmann::json data = nlohmann::json::array();
  for (const auto& m : registry_.List()) {
    nlohmann::json j = Describe(m, loaded);
    if (std::vector<std::string> aliases = registry_.AliasesOf(m.name); !aliases.empty()) {
      j["aliases"] = aliases;  // the names and patterns that stand for it
    }
    data.push_back(std::move(j));
  }
  if (!all) return data;
  AddCatalog(registry_.ListCatalog(), data);
  for (nlohmann::json& j : data) {
    if (j.contains("fit") || j.value("source", std::string()) != "catalog") continue;
    AddFit(j, fit_.FitOfSize(j.value("size", uint64_t{0})));
  }
  return data;
}

void OpenAiApi::Register(http::Router& router) {
  auto list = [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
    nlohmann::json data = ListJson(WantsAll(r.query));
    if (r.inference_key) {
      for (nlohmann::json& model : data) WithoutHostPaths(model);
    }
    nlohmann::json reply = {{"object", "list"}, {"data", data}};
    co_await SendJson(w, reply);
  };
  auto get = [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
    auto model = registry_.Find(r.params.at(0));
    if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
    nlohmann::json reply = Describe(*model, LoadedContexts(engines_.instances));
    if (r.inference_key) WithoutHostPaths(reply);
    co_await SendJson(w, reply);
  };
  auto inference = [this](Capability kind) {
    return [this, kind](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
      co_await Inference(kind, r, w);
    };
  };
  for (std::string prefix : {"/v1", "/api/v1"}) {
    router.Add("GET", prefix + "/models", list);
    router.Add("GET", prefix + "/models/{id...}", get);
    router.Add("POST", prefix + "/chat/completions", inference(Capability::kChat));
    router.Add("POST", prefix + "/completions", inference(Capability::kCompletions));
    router.Add("POST", prefix + "/embeddings", inference(Capability::kEmbeddings));
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
    router.Add("POST", prefix + "/audio/speech",
               [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
                 co_await Speak(r, w);
               });
    router.Add("GET", prefix + "/audio/voices",
               [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
                 co_await Voices(r, w);
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
