#include "api/admin/load_api.h"

#include <nlohmann/json.hpp>

#include "api/openai/errors.h"
#include "api/openai/request_parse.h"

namespace zest::api::admin {

namespace asio = boost::asio;
using nlohmann::json;

void LoadApi::Register(http::Router& router) {
  router.Add("POST", "/api/v1/load",
             [this](http::Request& r, http::ResponseWriter& w) { return Load(r, w); });
}

asio::awaitable<void> LoadApi::Load(http::Request& r, http::ResponseWriter& w) {
  json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  // Errors are named Statuses: temporaries inside co_await trip GCC 12.
  if (!body.is_object()) {
    const Status bad = InvalidArgument("the request body must be a JSON object");
    co_return co_await openai::SendError(w, bad);
  }
  auto name = body.find("model");
  if (name == body.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    const Status missing = InvalidArgument("'model' is required");
    co_return co_await openai::SendError(w, missing, "model");
  }
  scheduler::KeepAlive keep_alive = residency_.default_keep_alive();
  if (auto field = body.find("keep_alive"); field != body.end() && !field->is_null()) {
    auto parsed = openai::ParseKeepAliveField(*field);
    if (!parsed.ok()) co_return co_await openai::SendError(w, parsed.status(), "keep_alive");
    keep_alive = *parsed;
  }
  auto model = registry_.Find(name->get<std::string>());
  if (!model.ok()) co_return co_await openai::SendError(w, model.status(), "model");
  auto started = std::chrono::steady_clock::now();
  // Held while loading, so the reaper cannot unload what is being loaded.
  residency_.Begin(model->name);
  auto instance = co_await pool_.Acquire(*model, /*urgent=*/true);
  residency_.End(model->name, keep_alive);
  if (!instance.ok()) co_return co_await openai::SendError(w, instance.status(), "model");
  auto load_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  json reply = {{"status", "loaded"},
                {"model", model->name},
                {"pid", (*instance)->pid()},
                {"load_ms", load_ms.count()},
                {"keep_alive", FormatDuration(keep_alive)}};
  co_await w.Send(200, "application/json", reply.dump());
}

}  // namespace zest::api::admin
