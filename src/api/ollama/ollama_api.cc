#include "api/ollama/ollama_api.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "api/json_body.h"
#include "api/model_file_json.h"
#include "api/ollama/ollama_models.h"

namespace zest::api::ollama {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

// Ollama's status for each kind of error.
int StatusFor(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kInvalidArgument:
      return 400;
    case ErrorCode::kNotFound:
      return 404;
    default:
      return 500;
  }
}

awaitable<void> SendError(http::ResponseWriter& w, const Status& status) {
  const json body = {{"error", status.message()}};
  co_await w.Send(StatusFor(status), "application/json", body.dump());
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

}  // namespace

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
  for (const scheduler::InstanceStatus& s : pool_.List()) {
    if (s.state != "ready" || s.replica) continue;  // Ollama lists a model once
    Result<models::ModelEntry> model = registry_.Find(s.model);
    if (!model.ok()) continue;  // deleted while loaded
    models.push_back(PsEntry(*model, s, ExpiresAt(residency_, s.model)));
  }
  const json body = {{"models", std::move(models)}};
  co_await SendJson(w, body);
}

// {"model": NAME} (older clients: {"name": NAME}); `verbose` is accepted
// (zest shows every metadata key anyway, long arrays by their length).
awaitable<void> OllamaApi::Show(http::Request& r, http::ResponseWriter& w) {
  Result<json> body = ParseJsonObject(r.body);
  if (!body.ok()) co_return co_await SendError(w, body.status());
  const json& name = body->contains("model") ? (*body)["model"] : body->value("name", json());
  if (!name.is_string() || name.get<std::string>().empty()) {
    co_return co_await SendError(w, InvalidArgument("model is required"));
  }
  Result<models::ModelEntry> model = registry_.Find(ZestName(name.get<std::string>()));
  if (!model.ok()) {
    const Status missing = NotFound("model '" + name.get<std::string>() + "' not found");
    co_return co_await SendError(w, missing);
  }
  Result<json> file = model->error.empty() ? ModelFileJson(*model) : Internal(model->error);
  if (!file.ok()) co_return co_await SendError(w, file.status());
  const json reply = ShowJson(*model, (*file)["metadata"]);
  co_await SendJson(w, reply);
}

void OllamaApi::Register(http::Router& router) {
  router.Add("GET", "/", [](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
    co_await w.Send(200, "text/plain; charset=utf-8", "Ollama is running");
  });
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
}

}  // namespace zest::api::ollama
