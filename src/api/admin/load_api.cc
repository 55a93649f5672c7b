#include "api/admin/load_api.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>

#include "api/admin/model_options_json.h"
#include "api/admin/request_body.h"
#include "api/request/errors.h"
#include "api/request/request_fields.h"
#include "scheduler/speculative_choice.h"

namespace zest::api::admin {

namespace asio = boost::asio;
using nlohmann::json;

LoadApi::~LoadApi() { blocking_.join(); }

void LoadApi::Register(http::Router& router) {
  router.Add("POST", "/api/v1/load",
             [this](http::Request& r, http::ResponseWriter& w) { return Load(r, w); });
}

asio::awaitable<void> LoadApi::Load(http::Request& r, http::ResponseWriter& w) {
  std::string param;
  auto request = ParseLoadRequest(r.body, &param);
  if (!request.ok()) co_return co_await api::SendError(w, request.status(), param);
  scheduler::KeepAlive keep_alive = request->keep_alive.value_or(residency_.default_keep_alive());
  auto model = registry_.Find(request->model);
  if (!model.ok()) co_return co_await api::SendError(w, model.status(), "model");
  // The model's configured options overlaid with the request's, if any.
  std::optional<config::ModelSettings> settings;
  if (request->options) {
    settings = config_.Configured(model->name);
    Status bad = ApplyModelOptions(*request->options, *settings, &param);
    if (!bad.ok()) co_return co_await api::SendError(w, bad, param);
    // Flags the engine's allow-list refuses, or files it does not serve.
    const Status args = config_.CheckExtraArgs(settings->extra_args);
    if (!args.ok()) co_return co_await api::SendError(w, args, "options.extra_args");
    // A draft zest does not know, or whose tokenizer is not the model's:
    // refused here with the reason (a configured one only makes a log line).
    // A member coroutine, not a capturing lambda: GCC 12 miscompiles those.
    Status draft = co_await asio::co_spawn(blocking_, CheckDraftBlocking(*model, *settings),
                                           asio::use_awaitable);
    if (!draft.ok()) co_return co_await api::SendError(w, draft, "options.draft");
  }
  auto started = std::chrono::steady_clock::now();
  // Held while loading, so the reaper cannot unload what is being loaded.
  const bool options_given = settings.has_value();
  residency_.Begin(model->name);
  auto instance = co_await AcquireFor(*model, std::move(settings));
  residency_.End(model->name, keep_alive);
  if (!instance.ok()) {
    // Options the placement refuses (a device the engine lacks, a context
    // above the trained one) are the request's options at fault.
    const bool options_at_fault =
        options_given && instance.status().code() == ErrorCode::kInvalidArgument;
    const std::string bad_param = options_at_fault ? "options" : "model";
    co_return co_await api::SendError(w, instance.status(), bad_param);
  }
  // "replica": true adds an instance on a device the model's instances do
  // not use yet (placement/replica.h), as the autoscaler would under load.
  if (request->replica) {
    const std::string reason = "asked for by POST /api/v1/load";
    Status added = co_await lifecycle_.AddReplica(*model, reason, /*by_autoscaler=*/false);
    if (!added.ok()) co_return co_await api::SendError(w, added, "replica");
  }
  auto load_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  json reply = {{"status", "loaded"},
                {"model", model->name},
                {"pid", (*instance)->pid()},
                {"load_ms", load_ms.count()},
                {"keep_alive", FormatDuration(keep_alive)},
                {"options", ModelOptionsJson(OptionsInEffect(model->name))}};
  co_await w.Send(200, "application/json", reply.dump());
}

asio::awaitable<Result<std::shared_ptr<scheduler::Instance>>> LoadApi::AcquireFor(
    models::ModelEntry model, std::optional<config::ModelSettings> settings) {
  // Asked for explicitly: tried now, even while the crash-loop breaker
  // holds it off.
  co_return co_await lifecycle_.ExplicitLoad(std::move(model), std::move(settings));
}

asio::awaitable<Status> LoadApi::CheckDraftBlocking(models::ModelEntry model,
                                                    config::ModelSettings settings) {
  auto speculative = scheduler::ChooseSpeculative(
      model, settings, [this](const std::string& name) { return registry_.Find(name); });
  co_return speculative.ok() ? Status::Ok() : speculative.status();
}

config::ModelSettings LoadApi::OptionsInEffect(const std::string& model) {
  for (const scheduler::InstanceStatus& s : instances_.List()) {
    if (s.model == model) return s.settings;
  }
  return config_.Configured(model);
}

}  // namespace zest::api::admin
