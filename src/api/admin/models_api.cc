#include "api/admin/models_api.h"

#include <nlohmann/json.hpp>

#include "api/admin/request_body.h"
#include "api/model_file_json.h"
#include "api/model_json.h"
#include "api/request/errors.h"
#include "relay/json_text.h"

namespace zest::api::admin {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

}  // namespace

std::string QueryParam(std::string_view query, std::string_view key) {
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view pair = query.substr(start, end - start);
    size_t eq = pair.find('=');
    if (http::PercentDecode(pair.substr(0, eq), true) == key) {
      return eq == std::string_view::npos ? std::string()
                                          : http::PercentDecode(pair.substr(eq + 1), true);
    }
    start = end + 1;
  }
  return {};
}

awaitable<Result<models::ModelEntry>> ModelsApi::Delete(std::string name) {
  auto model = registry_.Find(name);
  if (!model.ok()) co_return model.status();
  // A preset is a registration: its base's engine and file stay.
  if (model->preset) {
    Status removed = registry_.Remove(*model);
    if (!removed.ok()) co_return removed;
    co_return model;
  }
  // An engine may serve the file under another name (a catalog name and the
  // store name); each is stopped before the file goes.
  for (const std::string& alias : registry_.NamesFor(*model)) {
    Status st = co_await lifecycle_.Stop(alias, scheduler::kDelete);
    if (!st.ok() && st.code() != ErrorCode::kNotFound) co_return st;
    // Its saved conversations go with it.
    std::error_code ec;
    if (std::filesystem::path slots = slot_dirs_.Saved(alias); !slots.empty())
      std::filesystem::remove_all(slots, ec);
  }
  Status removed = registry_.Remove(*model);
  if (!removed.ok()) co_return removed;
  co_return model;
}

awaitable<void> ModelsApi::SendDeleted(std::string name, http::ResponseWriter& w) {
  auto deleted = co_await Delete(name);
  if (!deleted.ok()) co_return co_await api::SendError(w, deleted.status(), "model");
  json reply = {{"status", "deleted"}, {"model", deleted->name}, {"source", deleted->source}};
  co_await w.Send(200, "application/json", reply.dump());
}

awaitable<void> ModelsApi::SendShow(std::string name, http::ResponseWriter& w) {
  if (name.empty()) {
    const Status missing = InvalidArgument("'model' is required");
    co_return co_await api::SendError(w, missing, "model");
  }
  auto model = registry_.Find(name);
  if (!model.ok()) co_return co_await api::SendError(w, model.status(), "model");
  Result<json> file = ModelFileJson(*model);
  if (!file.ok()) {
    const Status unreadable = Internal(file.status().message());
    co_return co_await api::SendError(w, unreadable, "model");
  }
  bool loaded = false;
  for (const auto& s : instances_.List())
    loaded = loaded || (s.model == model->name && s.state == "ready");
  json reply = {{"model", model->name}, {"details", api::ModelJson(*model, loaded)}};
  reply.update(*file);
  std::string body = relay::JsonText(reply);
  co_await w.Send(200, "application/json", body);
}

void ModelsApi::Register(http::Router& router) {
  router.Add("DELETE", "/api/v1/models/{name...}",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               co_await SendDeleted(r.params.at(0), w);
             });
  router.Add("POST", "/api/v1/delete",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               auto name = StringField(r.body, "model");
               if (!name.ok()) co_return co_await api::SendError(w, name.status(), "model");
               co_await SendDeleted(*name, w);
             });
  router.Add("GET", "/api/v1/show",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               co_await SendShow(QueryParam(r.query, "model"), w);
             });
  router.Add("POST", "/api/v1/show",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               auto name = StringField(r.body, "model");
               if (!name.ok()) co_return co_await api::SendError(w, name.status(), "model");
               co_await SendShow(*name, w);
             });
}

}  // namespace zest::api::admin
