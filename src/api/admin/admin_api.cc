#include "api/admin/admin_api.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "api/admin/model_options_json.h"
#include "api/admin/request_body.h"
#include "api/admin/system_json.h"
#include "api/request/errors.h"
#include "engines/process_memory.h"
#include "placement/replica.h"

namespace zest::api::admin {
namespace {

namespace asio = boost::asio;
using asio::awaitable;
using nlohmann::json;

awaitable<void> SendJson(http::ResponseWriter& w, const json& j, int status = 200) {
  co_await w.Send(status, "application/json", j.dump());
}

// Note: replies are built in named variables, never as braced temporaries
// inside co_await, which GCC 12 miscompiles.

// Where an instance runs and the memory predicted for it, per device.
json PlacementJson(const placement::EnginePlan& plan, const std::string& recipe) {
  json predicted = json::object();
  for (const auto& use : plan.memory) {
    predicted[use.device] = {{"weights", use.memory.weights},
                             {"kv_cache", use.memory.kv_cache},
                             {"compute", use.memory.compute},
                             {"overhead", use.memory.overhead},
                             {"prompt_cache", use.memory.prompt_cache},
                             {"learned", use.memory.learned},
                             {"draft", use.memory.draft},
                             {"total", use.memory.Total()}};
  }
  json j = {{"recipe", recipe},
            {"devices", plan.gpu_devices.empty() ? json::array({placement::PrimaryDevice(plan)})
                                                 : json(plan.gpu_devices)},
            {"n_gpu_layers", plan.n_gpu_layers},
            {"n_cpu_moe", plan.n_cpu_moe},
            {"ctx_size", plan.ctx_per_slot},
            {"parallel", plan.parallel},
            {"cache_type_k", placement::KvTypeName(plan.cache_type_k)},
            {"cache_type_v", placement::KvTypeName(plan.cache_type_v)},
            {"cpu_threads", plan.cpu_threads},
            {"predicted_bytes", predicted},
            {"predicted_total_bytes", plan.TotalBytes()},
            {"explanation", plan.explanation}};
  // kv_type, the shorthand, only where it says it all: both caches alike.
  if (plan.cache_type_k == plan.cache_type_v) {
    j["kv_type"] = placement::KvTypeName(plan.cache_type_k);
  }
  if (!plan.tensor_split.empty()) j["tensor_split"] = plan.tensor_split;
  if (plan.on_npu) j["flm"] = plan.engine_checkpoint;
  if (plan.cache_ram_mib) j["cache_ram"] = *plan.cache_ram_mib;
  const placement::SpeculativePlan& spec = plan.speculative;
  if (spec.kind != placement::SpeculativeKind::kNone) {
    j["speculative"] = {{"kind", placement::SpeculativeKindName(spec.kind)}};
    if (!spec.draft_model.empty()) {
      j["speculative"]["draft"] = spec.draft_model;
      j["speculative"]["draft_device"] = spec.draft_device.empty() ? "CPU" : spec.draft_device;
    }
  } else if (spec.switched_off) {
    j["speculative"] = {{"kind", "none"},
                        {"switched_off",
                         {{"draft", spec.switched_off->draft_model},
                          {"acceptance", spec.switched_off->acceptance},
                          {"drafted_tokens", spec.switched_off->drafted}}}};
  }
  return j;
}

// What earlier loads of the instance's model file taught placement for
// this kind of layout (`scope`: cpu_only or with_gpus): the smoothed
// measured/predicted ratio of the CPU side, from how many loads, and the
// factor applied to this instance's CPU prediction (never below 1). null:
// nothing learned when it was placed.
json MemoryCorrectionJson(const placement::EnginePlan& plan) {
  if (!plan.memory_correction) return nullptr;
  const placement::MemoryCorrection& c = *plan.memory_correction;
  return {{"scope", placement::CorrectionScopeName(plan.correction_scope)},
          {"ratio", c.ratio},
          {"loads", c.loads},
          {"applied_factor", c.Factor()}};
}

// `expires_in_s`: seconds until an idle instance unloads (null while busy or
// kept forever). `measure`: add each engine's resident memory (a /proc scan;
// `ps` only). `engine_details`: the engine's process id and socket path,
// for admin keys only (an inference key has no business with either).
json InstancesJson(const std::vector<scheduler::InstanceStatus>& list,
                   const scheduler::Residency* residency, bool measure, bool engine_details) {
  json out = json::array();
  auto now = scheduler::Residency::Clock::now();
  for (const auto& s : list) {
    json expires_in = nullptr;
    if (auto at = residency ? residency->ExpiresAt(s.model) : std::nullopt;
        at && s.in_flight == 0) {
      expires_in = std::max(0.0, std::chrono::duration<double>(*at - now).count());
    }
    json i = {{"model", s.model},
              {"engine", s.engine},
              {"state", s.state},
              {"uptime_s", s.uptime_s},
              {"in_flight", s.in_flight},
              {"expires_in_s", expires_in},
              {"device", s.device},
              {"slots", s.slots},
              {"replica", s.replica},
              {"idle_s", s.idle_s},
              {"per_token_ms", s.per_token_ms ? json(*s.per_token_ms) : json(nullptr)},
              {"placement", PlacementJson(s.plan, s.recipe)},
              {"options", ModelOptionsJson(s.settings)},
              {"memory_correction", MemoryCorrectionJson(s.plan)}};
    if (engine_details) {
      i["pid"] = s.pid;
      i["socket"] = s.socket;
    }
    if (measure) i["measured_rss_bytes"] = engines::ProcessTreeRssBytes(s.pid);
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

AdminApi::AdminApi(const config::LoadedSettings& settings, models::ModelRegistry& registry,
                   scheduler::InstanceDirectory& instances, scheduler::InstanceLifecycle& lifecycle,
                   std::shared_ptr<const engines::EngineSet> engines,
                   scheduler::Residency* residency)
    : settings_(settings),
      registry_(registry),
      instances_(instances),
      lifecycle_(lifecycle),
      engines_(std::move(engines)),
      residency_(residency) {}

AdminApi::~AdminApi() { blocking_.join(); }

const engines::EngineAdapter* AdminApi::ProbedEngine() const {
  for (const engines::EngineAdapter* e : engines_->All()) {
    if (e->probes_devices()) return e;
  }
  return nullptr;
}

awaitable<Result<engines::EngineInfo>> AdminApi::DeviceProbe() {
  {
    MutexLock lock(mu_);
    if (engine_info_) co_return *engine_info_;
  }
  const engines::EngineAdapter* engine = ProbedEngine();
  if (engine == nullptr) co_return Unavailable("no engine probes devices");
  if (Status available = engine->Available(); !available.ok()) co_return available;
  // A member coroutine, not a capturing lambda: GCC 12 miscompiles those.
  auto info = co_await asio::co_spawn(blocking_, ProbeBlocking(engine), asio::use_awaitable);
  MutexLock lock(mu_);
  engine_info_ = info;
  co_return info;
}

awaitable<Result<engines::EngineInfo>> AdminApi::ProbeBlocking(
    const engines::EngineAdapter* engine) {
  co_return engine->ProbeDevices();
}

json AdminApi::RpcWorkersJson() const { return rpc_workers_ ? rpc_workers_() : json::array(); }

// Per loaded model, what the session tier holds for it.
json SessionCacheJson(const std::vector<scheduler::InstanceStatus>& list,
                      const scheduler::SessionTier& tier) {
  json out = json::object();
  for (const auto& instance : list) {
    if (out.contains(instance.model)) continue;
    scheduler::SessionTierStats stats = tier.StatsOf(instance.model);
    out[instance.model] = {{"sessions", stats.sessions}, {"saves", stats.saves},
                           {"restores", stats.restores}, {"failed_restores", stats.failed_restores},
                           {"files", stats.files},       {"disk_bytes", stats.disk_bytes}};
  }
  return out;
}

json AdminApi::PsJson(http::Access access) const {
  std::vector<scheduler::InstanceStatus> list = instances_.List();
  json reply = {
      {"instances", InstancesJson(list, residency_, true, access == http::Access::kAdmin)}};
  // Per loaded model: nothing loaded, nothing to say.
  if (session_tier_ != nullptr && session_tier_->enabled() && !list.empty()) {
    reply["session_cache"] = SessionCacheJson(list, *session_tier_);
  }
  return reply;
}

void AdminApi::Register(http::Router& router) {
  // Liveness, for anyone (load balancers, probes): nothing about what runs.
  router.Add("GET", "/health", [](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
    std::string ok = R"({"status":"ok"})";
    co_await w.Send(200, "application/json", std::move(ok));
  });
  router.Add("GET", "/api/v1/health",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               auto list = instances_.List();
               std::set<std::string> models;  // a model with replicas has several instances
               for (const auto& s : list) models.insert(s.model);
               json reply = {{"status", "ok"},
                             {"version", ZEST_VERSION},
                             {"models_loaded", models.size()},
                             {"instances", InstancesJson(list, residency_, false,
                                                         r.access == http::Access::kAdmin)},
                             {"rpc_workers", RpcWorkersJson()}};
               co_await SendJson(w, reply);
             });

  router.Add("GET", "/api/v1/ps",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               json reply = PsJson(r.access);
               co_await SendJson(w, reply);
             });

  router.Add("POST", "/api/v1/unload",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               auto model = StringField(r.body, "model");
               if (!model.ok()) co_return co_await api::SendError(w, model.status(), "model");
               Status st = co_await lifecycle_.Stop(*model, scheduler::kUnload);
               if (!st.ok()) co_return co_await api::SendError(w, st, "model");
               if (residency_ != nullptr) residency_->Forget(*model);
               json reply = {{"status", "stopped"}, {"model", *model}};
               co_await SendJson(w, reply);
             });

  router.Add("POST", "/api/v1/add",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               std::string param;
               Result<AddRequest> add = ParseAddRequest(r.body, &param);
               if (!add.ok()) co_return co_await api::SendError(w, add.status(), param);
               Status st = registry_.Add(add->name, add->path, add->mmproj);
               if (!st.ok()) co_return co_await api::SendError(w, st, "path");
               json reply = {{"status", "added"}, {"name", add->name}, {"path", add->path}};
               if (!add->mmproj.empty()) reply["mmproj"] = add->mmproj;
               co_await SendJson(w, reply);
             });

  router.Add("GET", "/api/v1/engines",
             [this](http::Request& r, http::ResponseWriter& w) -> awaitable<void> {
               // The installed engines; an error when the one that finds the
               // devices models are placed on is missing or its probe failed.
               Result<engines::EngineInfo> probed = co_await DeviceProbe();
               json list = json::array();
               for (const engines::EngineAdapter* e : engines_->All()) {
                 if (e->Available().ok()) list.push_back(EngineJson(DescribeEngine(*e, &probed)));
               }
               if (r.access != http::Access::kAdmin) StripHostPaths(list);
               json reply = {{"engines", list}};
               if (!probed.ok()) reply["error"] = probed.status().message();
               co_await SendJson(w, reply);
             });

  router.Add("GET", "/api/v1/config",
             [this](http::Request&, http::ResponseWriter& w) -> awaitable<void> {
               json rows = json::array();
               for (const auto& o : settings_.origins) {
                 rows.push_back({{"key", o.key},
                                 {"value", o.value},
                                 {"source", config::SourceName(o.source)},
                                 {"detail", o.detail}});
               }
               json reply = {{"settings", rows}};
               co_await SendJson(w, reply);
             });
}

}  // namespace zest::api::admin
