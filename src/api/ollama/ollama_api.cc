#include "api/ollama/ollama_api.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "api/admit_request.h"
#include "api/json_body.h"
#include "api/key_scope.h"
#include "api/model_file_json.h"
#include "api/ollama/ollama_chat.h"
#include "api/ollama/ollama_create.h"
#include "api/ollama/ollama_embed.h"
#include "api/ollama/ollama_models.h"
#include "api/request/errors.h"

namespace zest::api::ollama {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

// Ollama's error shape, {"error": "..."}, with the status every API maps
// zest's errors to (openai/errors.h).
awaitable<void> SendOllamaError(http::ResponseWriter& w, const Status& status,
                                std::string_view /*param*/, const http::Headers& headers) {
  const std::string body = json{{"error", status.message()}}.dump();
  co_await w.Send(api::MapStatus(status).http_status, "application/json", body, headers);
}

awaitable<void> SendError(http::ResponseWriter& w, const Status& status) {
  static const http::Headers kNone;
  co_await SendOllamaError(w, status, "", kNone);
}

awaitable<void> SendJson(http::ResponseWriter& w, const json& body) {
  co_await w.Send(200, "application/json", body.dump());
}

// When the keep-alive unloads `model`, seconds since the epoch.
std::optional<int64_t> ExpiresAt(const scheduler::Residency* residency, const std::string& model) {
  if (residency == nullptr) return std::nullopt;
  std::optional<scheduler::Residency::Clock::time_point> at = residency->ExpiresAt(model);
  if (!at) return std::nullopt;
  const auto left = *at - scheduler::Residency::Clock::now();
  const auto when = std::chrono::system_clock::now() +
                    std::chrono::duration_cast<std::chrono::system_clock::duration>(left);
  return std::chrono::duration_cast<std::chrono::seconds>(when.time_since_epoch()).count();
}

// The model name a body gives under `key` (older clients: `name`).
Result<std::string> NameField(const json& body, const char* key) {
  const json name = body.contains(key) ? body[key] : body.value("name", json());
  if (!name.is_string() || name.get<std::string>().empty()) {
    return InvalidArgument(std::string(key) + " is required");
  }
  return name.get<std::string>();
}

}  // namespace

std::string RenderOllamaHttpError(int, const std::string& message) {
  return json{{"error", message}}.dump();
}

awaitable<void> OllamaApi::Tags(http::Request&, http::ResponseWriter& w) {
  json models = json::array();
  for (const models::ModelEntry& m : registry_.List()) {
    if (m.error.empty()) models.push_back(TagsEntry(m));
  }
  const json body = {{"models", std::move(models)}};
  co_await SendJson(w, body);
}

awaitable<void> OllamaApi::Ps(http::Request&, http::ResponseWriter& w) {
  json models = json::array();
  for (const scheduler::InstanceStatus& s : engines_.instances.List()) {
    if (s.state != "ready" || s.replica) continue;  // Ollama lists a model once
    Result<models::ModelEntry> model = registry_.Find(s.model);
    if (!model.ok()) continue;  // deleted while loaded
    models.push_back(PsEntry(*model, s, ExpiresAt(engines_.residency, s.model)));
  }
  const json body = {{"models", std::move(models)}};
  co_await SendJson(w, body);
}

// {"model": NAME} (older clients: {"name": NAME}); `verbose` is accepted
// (zest shows every metadata key anyway, long arrays by their length).
awaitable<void> OllamaApi::Show(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<std::string> name = NameField(*body, "model");
  if (!name.ok()) co_return co_await SendError(w, name.status());
  Result<models::ModelEntry> model = registry_.Find(ZestName(*name));
  if (!model.ok()) {
    const Status missing = NotFound("model '" + *name + "' not found");
    co_return co_await SendError(w, missing);
  }
  Result<json> file = model->error.empty() ? ModelFileJson(*model) : Internal(model->error);
  if (!file.ok()) co_return co_await SendError(w, file.status());
  const json reply = ShowJson(*model, (*file)["metadata"]);
  co_await SendJson(w, reply);
}

awaitable<void> OllamaApi::Embed(bool legacy, http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOllama,
                                  legacy ? "ollama_embeddings" : "ollama_embed", "", r.principal);
  co_await EmbedRoute(legacy, r, w, observer);
  observer.Finish(w);
}

awaitable<void> OllamaApi::EmbedRoute(bool legacy, http::Request& r, http::ResponseWriter& w,
                                      relay::RequestObserver& observer) {
  const auto start = std::chrono::steady_clock::now();
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<EmbedRequest> request = ParseEmbedRequest(*body, legacy);
  if (!request.ok()) co_return co_await SendError(w, request.status());
  Result<models::ModelEntry> model = registry_.Find(ZestName(request->model));
  if (!model.ok()) {
    const Status missing = NotFound("model '" + request->model + "' not found");
    co_return co_await SendError(w, missing);
  }
  observer.SetModel(model->name);
  if (!model->error.empty()) {
    const Status unreadable = Internal(model->error);
    co_return co_await SendError(w, unreadable);
  }
  if (!model->info.embedding) {
    const Status not_embedding =
        InvalidArgument("model '" + request->model +
                        "' does not support embeddings (it is not an embedding model)");
    co_return co_await SendError(w, not_embedding);
  }
  Result<relay::RelayRequest> relay = AdmittedRelay(r, *model, request->model, request->priority,
                                                    options_.queue_timeout, &observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status());
  relay->send_error = SendOllamaError;
  relay->keep_alive = AllowedKeepAlive(r, request->keep_alive, options_.max_keep_alive);
  // Written for the dispatched instance's engine by its adapter; the
  // answer made Ollama's below.
  relay->chat = std::make_shared<const engines::ChatRequest>(EmbedChatRequest(*request));
  relay->from_engine = [job = *request, start, &observer](
                           const engines::EngineAdapter&, int status,
                           const std::string& engine_body) -> Result<relay::ApiAnswer> {
    if (status != 200) {
      return Status(
          status == 400 ? ErrorCode::kInvalidArgument : ErrorCode::kEngineFailed,
          "the engine answered " + std::to_string(status) + ": " + engine_body.substr(0, 300));
    }
    observer.OnBody(engine_body);  // its usage: prompt tokens
    const int64_t total_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
    ZEST_ASSIGN_OR_RETURN(json answer, OllamaEmbedAnswer(job, engine_body, total_ns));
    return relay::ApiAnswer{200, "application/json", answer.dump()};
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

awaitable<void> OllamaApi::Chat(bool generate, http::Request& r, http::ResponseWriter& w) {
  const auto start = std::chrono::steady_clock::now();
  relay::RequestObserver observer(metrics_, relay::Api::kOllama,
                                  generate ? "ollama_generate" : "ollama_chat", "", r.principal);
  Result<json> body = ParseJsonObject(r.body);
  Result<OllamaRequest> job = !body.ok() ? Result<OllamaRequest>(body.status())
                              : generate ? ParseGenerateRequest(*body)
                                         : ParseChatRequest(*body);
  Result<models::ModelEntry> model = job.ok() ? registry_.Find(ZestName(job->request.model))
                                              : Result<models::ModelEntry>(job.status());
  if (job.ok() && !model.ok()) model = NotFound("model '" + job->request.model + "' not found");
  if (model.ok()) {
    if (Status insert = InsertPrompt(job->request.model, model->info, *job); !insert.ok()) {
      model = insert;
    }
  }
  if (!model.ok()) {
    co_await SendError(w, model.status());
  } else {
    ChatJob spec;
    spec.model = std::move(*model);
    spec.translator = std::make_shared<OllamaAnswer>(*job, start);
    spec.send_error = SendOllamaError;
    spec.request = std::move(job->request);
    co_await RunChatJob(engines_, options_, r, w, observer, std::move(spec));
  }
  observer.Finish(w);
}

awaitable<void> OllamaApi::Delete(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<std::string> name = NameField(*body, "model");
  if (!name.ok()) co_return co_await SendError(w, name.status());
  // An unknown model is the registry's kNotFound: a 404.
  std::string zest_name = ZestName(*name);  // named: no temporaries in co_await
  Result<models::ModelEntry> deleted = co_await models_.Delete(std::move(zest_name));
  if (!deleted.ok()) co_return co_await SendError(w, deleted.status());
  co_await w.Send(200, "application/json", "{}");
}

awaitable<void> OllamaApi::Copy(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<std::string> source = NameField(*body, "source");
  Result<std::string> destination = NameField(*body, "destination");
  if (!source.ok()) co_return co_await SendError(w, source.status());
  if (!destination.ok()) co_return co_await SendError(w, destination.status());
  Result<models::ModelEntry> model = registry_.Find(ZestName(*source));
  if (!model.ok()) {
    const Status missing = NotFound("model '" + *source + "' not found");
    co_return co_await SendError(w, missing);
  }
  // Only GGUF models can be registered under another name (`zest add`); a
  // preset is copied as a preset.
  Status added = model->preset ? registry_.AddPreset(ZestName(*destination), *model->preset)
                               : registry_.Add(ZestName(*destination), model->path);
  if (!added.ok()) co_return co_await SendError(w, added);
  co_await w.Send(200, "application/json", "{}");
}

awaitable<void> OllamaApi::Create(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  Result<CreateRequest> create = ParseCreateRequest(*body);
  if (!create.ok() && create.status().code() == ErrorCode::kUnsupported) {
    const std::string unsupported = json{{"error", create.status().message()}}.dump();
    co_await w.Send(501, "application/json", unsupported);
    co_return;
  }
  if (!create.ok()) co_return co_await SendError(w, create.status());
  Status made;
  if (create->file) {
    made = registry_.Add(create->name, *create->file);
  } else {
    Result<models::ModelEntry> base = registry_.Find(create->preset.from);
    if (!base.ok()) co_return co_await SendError(w, base.status());
    made = registry_.AddPreset(
        create->name, base->preset ? Layered(*base->preset, create->preset) : create->preset);
  }
  if (!made.ok()) co_return co_await SendError(w, made);
  const std::string success = json{{"status", "success"}}.dump();
  if (!create->stream) {
    co_await w.Send(200, "application/json", success);
    co_return;
  }
  // Streamed, as Ollama streams it: status lines, the last one "success".
  const std::string lines =
      json{{"status", create->file ? "parsing GGUF" : "using existing layer"}}.dump() + "\n" +
      json{{"status", "writing manifest"}}.dump() + "\n" + success + "\n";
  co_await w.Send(200, "application/x-ndjson", lines);
}

void OllamaApi::Register(http::Router& router) {
  // "GET /" ("Ollama is running", which Ollama clients probe) is the web
  // UI's (webui/web_ui.h): browsers asking for it are sent to the UI.
  router.Add("GET", "/api/version", [](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
    const json body = {{"version", kOllamaApiVersion}};
    co_await SendJson(w, body);
  });
  router.Add("GET", "/api/tags",
             [this](http::Request& r, http::ResponseWriter& w) { return Tags(r, w); });
  router.Add("GET", "/api/ps",
             [this](http::Request& r, http::ResponseWriter& w) { return Ps(r, w); });
  router.Add("POST", "/api/show",
             [this](http::Request& r, http::ResponseWriter& w) { return Show(r, w); });
  router.Add("POST", "/api/pull", [this](http::Request& r, http::ResponseWriter& w) {
    return pulls_.Serve(pull_wire_, r, w);
  });
  router.Add("DELETE", "/api/delete",
             [this](http::Request& r, http::ResponseWriter& w) { return Delete(r, w); });
  router.Add("POST", "/api/copy",
             [this](http::Request& r, http::ResponseWriter& w) { return Copy(r, w); });
  router.Add("POST", "/api/create",
             [this](http::Request& r, http::ResponseWriter& w) { return Create(r, w); });
  for (bool generate : {false, true}) {
    router.Add("POST", generate ? "/api/generate" : "/api/chat",
               [this, generate](http::Request& r, http::ResponseWriter& w) {
                 return Chat(generate, r, w);
               });
  }
  for (bool legacy : {false, true}) {
    router.Add(
        "POST", legacy ? "/api/embeddings" : "/api/embed",
        [this, legacy](http::Request& r, http::ResponseWriter& w) { return Embed(legacy, r, w); });
  }
}

}  // namespace zest::api::ollama
