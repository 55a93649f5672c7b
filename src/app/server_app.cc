#include "app/server_app.h"

#include <spdlog/spdlog.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <future>
#include <optional>
#include <thread>
#include <vector>

#include "api/admin/admin_api.h"
#include "api/admin/events_api.h"
#include "api/admin/load_api.h"
#include "api/admin/models_api.h"
#include "api/admin/observability_api.h"
#include "api/admin/pull_api.h"
#include "api/admin/system_api.h"
#include "api/anthropic/anthropic_api.h"
#include "api/device_metrics.h"
#include "api/engine_metrics.h"
#include "api/metrics_api.h"
#include "api/ollama/ollama_api.h"
#include "api/openai/openai_api.h"
#include "api/pull_route.h"
#include "api/recent_errors.h"
#include "api/request/errors.h"
#include "api/responses/responses_api.h"
#include "app/cluster_sync.h"
#include "app/engine_search.h"
#include "app/gateway_security.h"
#include "app/readiness.h"
#include "app/rpc_workers.h"
#include "app/run_dir.h"
#include "app/scrape_gauges.h"
#include "app/service_notify.h"
#include "app/service_options.h"
#include "app/settings_checks.h"
#include "core/duration.h"
#include "core/logging.h"
#include "core/private_dirs.h"
#include "engines/engine_discovery.h"
#include "engines/pid_file.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "http/event_loops.h"
#include "http/server.h"
#include "http/upstream_pool.h"
#include "models/catalog.h"
#include "models/hub_client.h"
#include "models/model_registry.h"
#include "models/pull_service.h"
#include "relay/inference_metrics.h"
#include "scheduler/admission.h"
#include "scheduler/autoscale_loop.h"
#include "scheduler/engine_watchdog.h"
#include "scheduler/instance_pool.h"
#include "scheduler/keep_alive_reaper.h"
#include "webui/web_ui.h"

namespace zest::app {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

Status PrepareDirs(const config::Settings& s) {
  for (const fs::path& dir : {s.home, s.models_dir, s.LogDir()}) {
    ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
  }
  return Status::Ok();
}

// Engines a previous zest left running (it was SIGKILLed, or died before
// it could stop them; PR_SET_PDEATHSIG normally takes them along) are
// stopped before this one starts its own.
void ReapStaleEngines(const fs::path& pid_dir) {
  using Outcome = engines::ReapedEngine::Outcome;
  for (const engines::ReapedEngine& r :
       engines::ReapStaleEngines(pid_dir, std::chrono::seconds(5))) {
    std::string what = r.record.argv.empty() ? r.file.string() : r.record.argv.front();
    switch (r.outcome) {
      case Outcome::kKilled:
        spdlog::warn("reaped a stale engine from a previous run: pid {} ({}){}", r.record.pid, what,
                     r.forced ? ", needed SIGKILL" : "");
        break;
      case Outcome::kKillFailed:
        spdlog::error("a stale engine from a previous run survived SIGKILL: pid {} ({})",
                      r.record.pid, what);
        break;
      case Outcome::kOwnerAlive:
        spdlog::warn("engine pid {} belongs to another zest still running (pid {}) on this home",
                     r.record.pid, r.record.owner_pid);
        break;
      default:
        spdlog::info("removed stale engine pid file {} ({})", r.file.string(),
                     engines::OutcomeName(r.outcome));
    }
  }
}

// Discovery reads sysfs/procfs (hardware.*_root may point at a fixture
// tree) once; the sampler refreshes live numbers at 1 Hz.
hardware::Inventory DiscoverHardware(const hardware::SystemRoots& roots) {
  hardware::Inventory inventory = hardware::Discover(roots);
  spdlog::info("hardware: {} ({} threads), {} GPU(s), {} NPU(s), {} Vulkan device(s)",
               inventory.cpu.model_name, inventory.cpu.threads, inventory.gpus.size(),
               inventory.npus.size(), inventory.vulkan.size());
  return inventory;
}

// Inference requests holding a slot (connecting or running) or queued for one.
int RequestsInFlight(scheduler::Admission& admission) {
  int n = 0;
  for (const auto& q : admission.Stats()) {
    n += q.busy + static_cast<int>(q.waiting_high + q.waiting_normal + q.waiting_low);
  }
  return n;
}

// Graceful shutdown: with the listener closed, lets running and queued
// requests finish (streams included) for up to `deadline`.
void DrainRequests(scheduler::Admission& admission, std::chrono::seconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  int left = RequestsInFlight(admission);
  if (left > 0) spdlog::info("letting {} request(s) finish (up to {} s)", left, deadline.count());
  while (left > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = RequestsInFlight(admission);
  }
  if (left > 0)
    spdlog::warn("{} request(s) still running at the drain deadline; cutting them off", left);
}

}  // namespace

// The services, in the order they are built (and, reversed, destroyed).
struct ServerApp::Parts {
  Parts(const config::LoadedSettings& loaded_in, std::shared_ptr<LineRing> log_ring_in,
        std::unique_ptr<RunDir> run_dir_in, std::shared_ptr<http::Authenticator> auth_in)
      : loaded(loaded_in),
        s(loaded.settings),
        log_ring(std::move(log_ring_in)),
        run_dir(std::move(run_dir_in)),
        auth(std::move(auth_in)),
        engines(engines::DiscoverEngines(EngineSearchFor(s))),
        roots{s.sysfs_root, s.procfs_root, s.devfs_root},
        inventory(DiscoverHardware(roots)),
        sampler(roots, inventory),
        rpc_workers(s.rpc_workers, engines),
        loops(io, s.io_threads),
        signals(io, SIGINT, SIGTERM),
        registry(s.models_dir, s.UserModelsFile(), s.hf_hub_cache),
        inference_metrics(metrics),
        engine_metrics(metrics),
        session_tier(SessionTierOptionsFor(s), s.metrics_enabled ? &engine_metrics : nullptr),
        pool_options(WithKeysRequired(
            WithSessionTier(
                WithModelLookup(PoolOptionsFor(s, run_dir->path(), inventory, engines, rpc_workers),
                                registry),
                session_tier),
            auth)),
        pool(io, pool_options, s.metrics_enabled ? &engine_metrics : nullptr),
        admission(io, AdmissionLimitsFor(s), pool),
        // Validated when the settings were loaded.
        residency(ParseDuration(s.keep_alive).value()),
        reaper(io, residency, pool, pool),
        watchdog(io, pool, pool, std::chrono::seconds(s.watchdog_s)),
        autoscaler(io, AutoscaleParamsFor(s), admission, pool, pool, registry),
        // What the four chat APIs share.
        chat_engines{pool,
                     pool,
                     engines.get(),
                     admission,
                     &residency,
                     std::chrono::seconds(s.heartbeat_s),
                     s.split_prefill_tokens,
                     &session_tier,
                     &upstream_pool},
        chat_options(ChatRouteOptionsFor(s)),
        request_metrics(s.metrics_enabled ? &inference_metrics : nullptr),
        openai(registry, chat_engines, pool, chat_options, request_metrics),
        admin(loaded, registry, pool, pool, engines, &residency),
        model_config(pool_options.model_settings, engines, pool_options.model_roots),
        load_api(registry, pool, pool, model_config, residency),
        system_api(inventory, sampler, admin),
        models_api(registry, pool, pool,
                   scheduler::SlotDirs(pool_options.slot_dir, pool_options.handoff_dir)),
        pull_store(s.hf_hub_cache),
        pull_service(pull_store, models::HubConfig{s.hf_endpoint, s.hf_token},
                     PullOptionsFor(s, metrics), &models::Catalog::Builtin()),
        pull_runner(pull_service),
        pull_api(pull_runner),
        observability(request_metrics, admission, pool, registry, log_ring),
        events(observability, admin, system_api, request_metrics, recent_errors),
        cluster(ManifestPathFor(s), &models::Catalog::Builtin(), pull_service, readiness),
        ollama(registry, models_api, pull_runner, chat_engines, chat_options, request_metrics),
        response_store(s.home / "responses", {}),
        responses(registry, chat_engines, chat_options, response_store, request_metrics),
        anthropic(registry, chat_engines, chat_options, request_metrics),
        hangup(io, SIGHUP) {
    // Registered before anything starts, so an early SIGTERM still shuts
    // down cleanly instead of killing zest with its engines running.
    signals.async_wait([this](const boost::system::error_code& ec, int sig) {
      if (!ec) signalled.set_value(sig);  // cancelled only by Drain, when nobody waits
    });
    WireModels();
    WireMetrics();
    admin.SetSessionTier(&session_tier);
    RegisterRoutes();
  }

  // Where models come from: the stores, the aliases, the other tools' stores.
  void WireModels() {
    spdlog::info("model store: {}", s.hf_hub_cache.string());
    registry.SetAliases(AliasesFor(s));
    // Ollama's and LM Studio's models, served in place where they are.
    registry.SetOtherStores(s.ollama_roots, s.lmstudio_roots);
    for (const auto& root : s.ollama_roots) spdlog::debug("ollama store: {}", root.string());
    for (const auto& root : s.lmstudio_roots) spdlog::debug("lm studio store: {}", root.string());
  }

  // The capacity listener and the gauges every part reports.
  void WireMetrics() {
    // A model's gate holds the slots of all its instances (replicas included).
    pool.SetCapacityListener(&admission);
    AddPoolGauges(metrics, pool);
    api::AddDeviceGauges(metrics, inventory, sampler);
    AddQueueGauges(metrics, admission);
    cluster.AddGauges(metrics);
    if (!rpc_workers.empty()) rpc_workers.AddGauges(metrics);
  }

  void RegisterRoutes() {
    load_api.Register(router);
    openai.Register(router);
    if (s.metrics_enabled) api::RegisterMetricsRoute(router, metrics, &pool, engines.get());
    admin.Register(router);
    pull_api.Register(router);
    system_api.Register(router);
    models_api.Register(router);
    observability.Register(router);
    events.Register(router);
    web_ui.Register(router);
    readiness.Register(router);
    cluster.Register(router);
    ollama.Register(router);
    anthropic.Register(router);
    responses.Register(router);
  }

  const config::LoadedSettings loaded;
  const config::Settings& s;
  std::shared_ptr<LineRing> log_ring;
  std::unique_ptr<RunDir> run_dir;
  std::shared_ptr<http::Authenticator> auth;
  std::shared_ptr<const engines::EngineSet> engines;
  hardware::SystemRoots roots;
  hardware::Inventory inventory;
  hardware::UtilisationSampler sampler;
  RpcWorkers rpc_workers;
  asio::io_context io;  // the services' loop, and loop 0 of `loops`
  // One event loop per I/O thread; connections are spread over them.
  http::EventLoops loops;
  // Engine connections kept alive for the relay; its sockets go before the loops.
  http::UpstreamPool upstream_pool;
  asio::signal_set signals;
  std::promise<int> signalled;
  models::ModelRegistry registry;
  metrics::Registry metrics;
  relay::InferenceMetrics inference_metrics;
  api::EngineMetrics engine_metrics;
  scheduler::SessionTier session_tier;  // conversations kept across unloads
  scheduler::PoolOptions pool_options;  // the pool has its own copy
  scheduler::InstancePool pool;
  scheduler::Admission admission;
  scheduler::Residency residency;
  scheduler::KeepAliveReaper reaper;
  scheduler::EngineWatchdog watchdog;
  scheduler::AutoscaleLoop autoscaler;
  relay::EngineServices chat_engines;
  api::ChatRouteOptions chat_options;
  relay::InferenceMetrics* request_metrics;  // null when metrics are off
  api::openai::OpenAiApi openai;
  api::admin::AdminApi admin;
  scheduler::ModelConfig model_config;
  api::admin::LoadApi load_api;
  api::admin::SystemApi system_api;
  api::admin::ModelsApi models_api;
  models::HfStore pull_store;
  models::PullService pull_service;
  api::PullRunner pull_runner;  // every API's pull route (zest's, Ollama's)
  api::admin::PullApi pull_api;
  api::admin::ObservabilityApi observability;
  api::RecentErrors recent_errors;
  api::admin::EventsApi events;
  webui::WebUi web_ui;
  Readiness readiness;
  ClusterSync cluster;
  api::ollama::OllamaApi ollama;
  api::responses::ResponseStore response_store;
  api::responses::ResponsesApi responses;
  api::anthropic::AnthropicApi anthropic;
  http::Router router;
  http::Router no_routes;  // the HTTPS redirect listener's
  std::unique_ptr<http::Server> server;
  std::unique_ptr<http::Server> redirect;
  std::unique_ptr<http::Server> ollama_server;  // server.ollama_listen
  asio::signal_set hangup;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work;  // one a loop
  // Engines are spawned from the I/O threads with PR_SET_PDEATHSIG, so those
  // threads stay alive until every engine has been stopped.
  std::vector<std::jthread> threads;
  bool started = false;
  bool drained = false;
};

Result<std::unique_ptr<ServerApp>> ServerApp::Create(const config::LoadedSettings& loaded,
                                                     std::shared_ptr<LineRing> log_ring) {
  const config::Settings& s = loaded.settings;
  std::signal(SIGPIPE, SIG_IGN);
  ZEST_RETURN_IF_ERROR(CheckEngineFlags(s));
  ZEST_RETURN_IF_ERROR(CheckAliases(s));
  ZEST_RETURN_IF_ERROR(CheckBodyLimits(s));
  ZEST_RETURN_IF_ERROR(PrepareDirs(s));
  ReapStaleEngines(s.EnginePidDir());
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<RunDir> run_dir, RunDir::Create(s.runtime_dir));
  auto auth = http::Authenticator::Create({s.api_key, s.KeysFile()});
  if (!auth.ok()) return InvalidArgument(auth.status().message());
  std::shared_ptr<http::Authenticator> shared_auth = std::move(*auth);
  return std::unique_ptr<ServerApp>(new ServerApp(std::make_unique<Parts>(
      loaded, std::move(log_ring), std::move(run_dir), std::move(shared_auth))));
}

ServerApp::ServerApp(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {
  RpcWorkers& workers = parts_->rpc_workers;
  if (!workers.empty()) parts_->admin.SetRpcWorkers([&workers] { return workers.Json(); });
}

ServerApp::~ServerApp() {
  Drain();
  parts_->pool.SetCapacityListener(nullptr);  // admission goes before the pool
}

Status ServerApp::Start() {
  Parts& p = *parts_;
  const config::Settings& s = p.s;
  // API keys, access rules, bind safety, TLS: see gateway_security.h.
  ZEST_RETURN_IF_ERROR(ApplyAccessRules(p.router, s.metrics_enabled, s.metrics_public));
  ZEST_RETURN_IF_ERROR(CheckBindSafety(s, *p.auth));
  http::ServerOptions gateway = GatewayOptions(s, p.auth);
  // Every listener's error answers go to the dashboard's recent errors.
  const auto record_failure = [&errors = p.recent_errors](const http::FailedRequest& failed) {
    errors.Add(failed);
  };
  gateway.on_failed = record_failure;
  if (s.metrics_enabled) {
    // Turned away at the gateway, before any model is known.
    gateway.on_rejected = [&metrics = p.inference_metrics](std::string_view reason) {
      metrics.rejections.With({"", std::string(reason)}).Inc();
    };
  }
  p.server =
      std::make_unique<http::Server>(p.loops, std::move(gateway), p.router, api::RenderHttpError);
  if (Status st = p.server->Listen(); !st.ok()) {
    return Status(
        st.code() == ErrorCode::kInvalidArgument ? ErrorCode::kInternal : st.code(),
        "cannot listen on " + s.host + ":" + std::to_string(s.port) + ": " + st.message());
  }
  // Optional plain-HTTP listener that sends every request to HTTPS.
  if (s.https_redirect_port != 0) {
    auto options = RedirectOptions(s, p.server->port());
    Status st = options.ok() ? Status::Ok() : options.status();
    if (st.ok()) {
      p.redirect = std::make_unique<http::Server>(p.loops, std::move(*options), p.no_routes,
                                                  api::RenderHttpError);
      st = p.redirect->Listen();
    }
    if (!st.ok()) return InvalidArgument("HTTPS redirect: " + st.message());
    p.redirect->Start();
    spdlog::info("redirecting http://{}:{} to HTTPS", s.host, s.https_redirect_port);
  }
  // Optional second listener on Ollama's address, same routes and keys.
  if (!s.ollama_listen.empty()) {
    ZEST_ASSIGN_OR_RETURN(http::ServerOptions ollama, OllamaListenerOptions(s, p.auth));
    ollama.on_failed = record_failure;
    p.ollama_server = std::make_unique<http::Server>(p.loops, std::move(ollama), p.router,
                                                     api::ollama::RenderOllamaHttpError);
    if (Status st = p.ollama_server->Listen(); !st.ok()) {
      return Status(ErrorCode::kInternal, "cannot listen on " + s.ollama_listen +
                                              " (server.ollama_listen): " + st.message());
    }
    p.ollama_server->Start();
    spdlog::info("Ollama's API also on {}://{}", p.ollama_server->tls() ? "https" : "http",
                 s.ollama_listen);
  }
  std::vector<http::Server*> listeners = {p.server.get()};
  if (p.ollama_server) listeners.push_back(p.ollama_server.get());
  ReloadOnHangup(p.hangup, listeners, *p.auth);
  p.sampler.Start();
  p.reaper.Start();
  p.watchdog.Start();
  p.autoscaler.Start();
  p.server->Start();
  p.started = true;
  p.cluster.Start();  // ready now, or once the manifest's models are here
  spdlog::info("zest {} listening on {}://{}:{} (models in {})", ZEST_VERSION,
               p.server->tls() ? "https" : "http", s.host, p.server->port(), s.models_dir.string());
  NotifyService("READY=1\nSTATUS=listening on " + s.host + ":" + std::to_string(p.server->port()));
  return Status::Ok();
}

int ServerApp::Serve() {
  Parts& p = *parts_;
  // One thread per event loop (http/event_loops.h), loop 0 being `io`.
  for (int i = 0; i < p.loops.size(); ++i) {
    asio::io_context& loop = p.loops.loop(i);
    p.work.push_back(asio::make_work_guard(loop));
    p.threads.emplace_back([&loop] { loop.run(); });
  }
  int sig = p.signalled.get_future().get();
  p.readiness.Set(Readiness::State::kDraining);
  if (p.s.shutdown_delay_s > 0) {
    spdlog::info("received signal {}: /ready says draining; serving {} s more before closing", sig,
                 p.s.shutdown_delay_s);
    std::this_thread::sleep_for(std::chrono::seconds(p.s.shutdown_delay_s));
  }
  spdlog::info("received signal {}, shutting down", sig);
  return sig;
}

void ServerApp::Drain() {
  Parts& p = *parts_;
  if (p.drained) return;
  p.drained = true;
  NotifyService("STOPPING=1\nSTATUS=draining requests in flight");
  p.readiness.Set(Readiness::State::kDraining);
  p.cluster.Stop();
  if (p.started) {
    p.server->StopAccepting();
    if (p.ollama_server) p.ollama_server->StopAccepting();
    if (p.redirect) p.redirect->Stop();
    if (!p.threads.empty()) DrainRequests(p.admission, std::chrono::seconds(p.s.drain_timeout_s));
    p.server->Stop();
    if (p.ollama_server) p.ollama_server->Stop();
  }
  p.reaper.Stop();
  p.watchdog.Stop();
  p.autoscaler.Stop();
  p.hangup.cancel();
  p.signals.cancel();
  p.pool.StopAll();
  p.work.clear();
  for (int i = 0; i < p.loops.size(); ++i) p.loops.loop(i).stop();
  p.threads.clear();  // joins
  p.sampler.Stop();
  spdlog::info("stopped");
}

int RunServer(const config::LoadedSettings& loaded) {
  auto exit_code = [](const Status& st) {
    spdlog::error("{}", st.message());
    return st.code() == ErrorCode::kInvalidArgument ? 2 : 1;
  };
  const config::Settings& s = loaded.settings;
  std::shared_ptr<LineRing> log_ring = SetupLogging(s.log_level, s.log_format);
  auto app = ServerApp::Create(loaded, std::move(log_ring));
  if (!app.ok()) return exit_code(app.status());
  if (Status st = (*app)->Start(); !st.ok()) return exit_code(st);
  (*app)->Serve();
  (*app)->Drain();
  return 0;
}

}  // namespace zest::app
