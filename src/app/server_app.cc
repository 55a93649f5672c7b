#include "app/server_app.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "api/admin/admin_api.h"
#include "api/admin/load_api.h"
#include "api/admin/models_api.h"
#include "api/admin/observability_api.h"
#include "api/admin/pull_api.h"
#include "api/admin/system_api.h"
#include "api/admin/system_json.h"
#include "api/device_metrics.h"
#include "api/engine_metrics.h"
#include "api/inference_metrics.h"
#include "api/metrics_api.h"
#include "api/openai/errors.h"
#include "api/openai/openai_api.h"
#include "app/gateway_security.h"
#include "app/placement_wiring.h"
#include "core/duration.h"
#include "core/logging.h"
#include "core/private_dirs.h"
#include "engines/engine_locator.h"
#include "engines/flm_command.h"
#include "engines/llama_server_flags.h"
#include "engines/pid_file.h"
#include "engines/sandbox.h"
#include "hardware/inventory.h"
#include "hardware/sampler.h"
#include "http/server.h"
#include "models/model_registry.h"
#include "models/pull_service.h"
#include "placement/npu.h"
#include "scheduler/admission.h"
#include "scheduler/autoscale_loop.h"
#include "scheduler/engine_watchdog.h"
#include "scheduler/instance_pool.h"
#include "scheduler/keep_alive_reaper.h"

namespace zest::app {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

// Engine sockets live in a fresh 0700 directory per server run: only zest's
// user can connect, no stale sockets from a crashed run, and a short path
// (UNIX socket paths are limited to 108 bytes).
Result<fs::path> MakeRunDir() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  fs::path base = runtime && *runtime && fs::is_directory(runtime) ? runtime : "/tmp";
  std::string pattern = (base / "zest-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return IoError("cannot create a run directory under " + base.string());
  }
  ::chmod(pattern.c_str(), 0700);
  return fs::path(pattern);
}

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

// Per-model engine arguments are checked once more at each engine start
// (with the files they name), but a flag the allow-list refuses in the
// config is the user's mistake: say so at start.
Status CheckExtraArgs(const config::Settings& s) {
  for (const auto& [name, model] : s.model_settings) {
    if (auto flags = engines::CheckLlamaServerArgs(model.extra_args); !flags.ok()) {
      return InvalidArgument("models.\"" + name + "\".extra_args: " + flags.status().message());
    }
  }
  return Status::Ok();
}

Result<engines::EngineLocation> FindEngine(const config::Settings& s) {
  engines::LocateOptions opts{s.llama_server, config::ProcessEnv("PATH").value_or(""),
                              s.engine_rootfs, engines::EngineEnvironment(config::ProcessEnv, {})};
  auto engine = engines::LocateLlamaServer(opts);
  if (engine.ok()) {
    spdlog::info("engine: llama-server ({}) {}{}", engines::EngineSourceName(engine->source),
                 engine->binary.string(),
                 engine->rootfs.empty() ? "" : " in " + engine->rootfs.string());
    if (engine->sandboxed()) {
      spdlog::info("engine sandbox: {}", engine->SandboxNote());
    } else {
      spdlog::warn("engine sandbox: {}", engine->SandboxNote());
    }
  } else {
    spdlog::warn("no engine: {}", engine.status().message());
  }
  return engine;
}

// Gauges read from the pool at scrape time.
// A model with replicas has several instances: one sample per model.
void AddPoolGauges(metrics::Registry& metrics, scheduler::InstancePool& pool) {
  using Samples = std::vector<std::pair<metrics::LabelValues, double>>;
  metrics.AddGaugeCallback("zest_models_loaded", "Models with a ready engine instance.", {},
                           [&pool] {
                             std::set<std::string> ready;
                             for (const auto& s : pool.List()) {
                               if (s.state == "ready") ready.insert(s.model);
                             }
                             return Samples{{{}, double(ready.size())}};
                           });
  metrics.AddGaugeCallback("zest_model_instances",
                           "Ready engine instances per model (replicas included).", {"model"},
                           [&pool] {
                             std::map<std::string, double> count;
                             for (const auto& s : pool.List())
                               count[s.model] += s.state == "ready" ? 1 : 0;
                             Samples out;
                             for (const auto& [model, n] : count) out.push_back({{model}, n});
                             return out;
                           });
  metrics.AddGaugeCallback("zest_requests_running", "Requests being relayed to an engine.",
                           {"model"}, [&pool] {
                             std::map<std::string, double> running;
                             for (const auto& s : pool.List()) running[s.model] += s.in_flight;
                             Samples out;
                             for (const auto& [model, n] : running) out.push_back({{model}, n});
                             return out;
                           });
}

// Pull tuning from the environment: ZEST_PULL_CONNECTIONS (parallel ranges
// per large file), ZEST_PULL_STALL_TIMEOUT (seconds without a byte before
// reconnecting) and, for tests only, ZEST_TEST_FREE_BYTES (pretend free disk).
models::DownloadOptions PullOptionsFromEnv() {
  models::DownloadOptions options;
  auto number = [](const char* name) -> std::optional<uint64_t> {
    auto value = config::ProcessEnv(name);
    if (!value || value->empty()) return std::nullopt;
    char* end = nullptr;
    uint64_t n = std::strtoull(value->c_str(), &end, 10);
    if (*end != '\0') {
      spdlog::warn("ignoring {}={}: not a number", name, *value);
      return std::nullopt;
    }
    return n;
  };
  if (auto n = number("ZEST_PULL_CONNECTIONS"))
    options.connections = static_cast<int>(std::clamp<uint64_t>(*n, 1, 16));
  if (auto n = number("ZEST_PULL_STALL_TIMEOUT"))
    options.stall_timeout_s = static_cast<int>(std::clamp<uint64_t>(*n, 1, 3600));
  options.fake_free_bytes = number("ZEST_TEST_FREE_BYTES");
  return options;
}

// Queue depth per model and priority, and busy slots, read at scrape time.
void AddQueueGauges(metrics::Registry& metrics, scheduler::Admission& admission) {
  using Samples = std::vector<std::pair<metrics::LabelValues, double>>;
  metrics.AddGaugeCallback("zest_queue_depth", "Requests waiting for a slot.",
                           {"model", "priority"}, [&admission] {
                             Samples out;
                             for (const auto& q : admission.Stats()) {
                               out.push_back({{q.model, "high"}, double(q.waiting_high)});
                               out.push_back({{q.model, "normal"}, double(q.waiting_normal)});
                               out.push_back({{q.model, "low"}, double(q.waiting_low)});
                             }
                             return out;
                           });
  metrics.AddGaugeCallback("zest_slots_busy", "Slots in use per model.", {"model"}, [&admission] {
    Samples out;
    for (const auto& q : admission.Stats()) out.push_back({{q.model}, double(q.busy)});
    return out;
  });
  metrics.AddGaugeCallback("zest_slots_capacity", "Slots (engine parallel sequences) per model.",
                           {"model"}, [&admission] {
                             Samples out;
                             for (const auto& q : admission.Stats())
                               out.push_back({{q.model}, double(q.slots)});
                             return out;
                           });
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

int RunServer(const config::LoadedSettings& loaded) {
  const config::Settings& s = loaded.settings;
  std::shared_ptr<LineRing> log_ring = SetupLogging(s.log_level, s.log_format);
  std::signal(SIGPIPE, SIG_IGN);
  if (Status st = CheckExtraArgs(s); !st.ok()) {
    spdlog::error("{}", st.message());
    return 2;
  }
  if (Status st = PrepareDirs(s); !st.ok()) {
    spdlog::error("{}", st.message());
    return 1;
  }
  ReapStaleEngines(s.EnginePidDir());
  auto run_dir = MakeRunDir();
  if (!run_dir.ok()) {
    spdlog::error("{}", run_dir.status().message());
    return 1;
  }
  auto engine = FindEngine(s);
  Result<std::filesystem::path> flm =
      engines::LocateFlm(s.flm, config::ProcessEnv("PATH").value_or(""));
  if (flm.ok()) spdlog::info("engine: flm (FastFlowLM, for the NPU) {}", flm->string());
  // Discovery reads sysfs/procfs (ZEST_SYSFS_ROOT/ZEST_PROCFS_ROOT may point
  // at a fixture tree) once; the sampler refreshes live numbers at 1 Hz.
  hardware::SystemRoots roots = hardware::SystemRoots::FromEnv();
  hardware::Inventory inventory = hardware::Discover(roots);
  spdlog::info("hardware: {} ({} threads), {} GPU(s), {} NPU(s), {} Vulkan device(s)",
               inventory.cpu.model_name, inventory.cpu.threads, inventory.gpus.size(),
               inventory.npus.size(), inventory.vulkan.size());
  hardware::UtilisationSampler sampler(roots, inventory);
  sampler.Start();

  asio::io_context io;
  // Registered before anything starts, so an early SIGTERM still shuts down
  // cleanly instead of killing zest with its engines running.
  asio::signal_set signals(io, SIGINT, SIGTERM);
  std::promise<int> signalled;
  signals.async_wait(
      [&](const boost::system::error_code& ec, int sig) { signalled.set_value(ec ? 0 : sig); });
  // The Hugging Face cache is zest's store, shared with other tools.
  fs::path hf_store = models::HfStore::DefaultRoot(config::ProcessEnv);
  models::ModelRegistry registry(s.models_dir, s.UserModelsFile(), hf_store);
  spdlog::info("model store: {}", hf_store.string());
  scheduler::PoolOptions pool_options;
  pool_options.run_dir = *run_dir;
  pool_options.log_dir = s.LogDir();
  pool_options.pid_dir = s.EnginePidDir();
  pool_options.ctx_size = s.ctx_size;
  // The engine also runs the slots reserved for high priority.
  pool_options.parallel = s.parallel + s.reserved_slots;
  pool_options.threads = s.threads;
  pool_options.cpu_cores = inventory.cpu.physical_cores;
  pool_options.ready_timeout = std::chrono::seconds(s.ready_timeout_s);
  pool_options.memory_wait = std::chrono::seconds(s.memory_wait_s);
  pool_options.crash_loop_limit = s.crash_loop_limit;
  pool_options.discover_devices = DeviceDiscovery(inventory, engine, s);
  // The NPU's verdict does not depend on llama-server's devices: not probed.
  pool_options.npu = placement::NpuFromInventory(
      inventory,
      hardware::RecipeVerdicts(inventory, api::admin::MakeEngineReport(engine, nullptr, flm)));
  if (flm.ok()) pool_options.flm = *flm;
  {
    std::error_code ec;  // FastFlowLM runs behind `zest engine-bridge`: this binary
    pool_options.self_exe = fs::read_symlink("/proc/self/exe", ec);
  }
  pool_options.model_settings = s.model_settings;
  pool_options.model_roots = {s.models_dir, hf_store};
  pool_options.hidden_dirs = {s.home};
  pool_options.flm_environment = engines::FlmEnvironment(config::ProcessEnv);
  pool_options.memory_corrections_file = s.home / "memory_corrections.json";
  if (s.save_slots) pool_options.slot_dir = s.SlotDir();
  if (s.split_prefill_tokens > 0) {
    // Engines already write the run directory (sockets): handed-over slots go there too.
    pool_options.handoff_dir = *run_dir / "handoff";
    if (Status st = CreatePrivateDirectories(pool_options.handoff_dir); !st.ok()) {
      spdlog::error("{}", st.message());
    }
    spdlog::info(
        "experimental prefill/decode split: prompts of {}+ tokens prefill on another "
        "instance",
        s.split_prefill_tokens);
  }
  scheduler::AdmissionLimits limits{s.parallel,          static_cast<std::size_t>(s.max_queue),
                                    s.max_queued_tokens, std::chrono::seconds(s.aging_s),
                                    s.reserved_slots,    nullptr};
  // Until a model has a ready instance its gate has one engine's slots
  // (per-model `parallel`, a load's options); the pool is made below.
  scheduler::InstancePool* pool_for_gates = nullptr;
  limits.engine_parallel = [&pool_for_gates,
                            total = s.parallel + s.reserved_slots](const std::string& model) {
    return pool_for_gates != nullptr ? pool_for_gates->EngineParallel(model) : total;
  };
  scheduler::Admission admission(io, limits);
  // A model's gate holds the slots of all its instances (replicas included).
  pool_options.on_capacity = [&admission](const std::string& model, int instances, int slots) {
    admission.SetCapacity(model, instances, slots);
  };
  scheduler::InstancePool pool(io, std::move(pool_options), engine);
  pool_for_gates = &pool;
  metrics::Registry metrics;
  api::InferenceMetrics inference_metrics(metrics);
  api::EngineMetrics engine_metrics(metrics);
  if (s.metrics_enabled) pool.SetEvents(&engine_metrics);
  AddPoolGauges(metrics, pool);
  api::AddDeviceGauges(metrics, inventory, sampler);
  http::Router router;
  AddQueueGauges(metrics, admission);
  // Validated when the settings were loaded.
  scheduler::Residency residency(ParseDuration(s.keep_alive).value());
  scheduler::KeepAliveReaper reaper(io, residency, pool);
  reaper.Start();
  scheduler::EngineWatchdog watchdog(io, pool, std::chrono::seconds(s.watchdog_s));
  watchdog.Start();
  scheduler::AutoscaleParams autoscale;
  autoscale.enabled = s.autoscale && s.autoscale_max_replicas > 1;
  autoscale.max_replicas = s.autoscale_max_replicas;
  autoscale.window = std::chrono::seconds(s.autoscale_window_s);
  autoscale.idle = std::chrono::seconds(s.autoscale_idle_s);
  scheduler::AutoscaleLoop autoscaler(io, autoscale, admission, pool, registry);
  autoscaler.Start();
  api::EngineServices engine_services{pool, admission, &residency,
                                      std::chrono::seconds(s.heartbeat_s), s.split_prefill_tokens};
  api::openai::OpenAiApi::Options openai_options;
  openai_options.queue_timeout = std::chrono::seconds(s.queue_timeout_s);
  openai_options.limits = {s.max_messages, s.max_tokens_cap};
  openai_options.default_max_tokens = s.default_max_tokens;
  openai_options.max_keep_alive =
      ParseDuration(s.max_keep_alive.empty() ? s.keep_alive : s.max_keep_alive).value();
  api::openai::OpenAiApi openai(registry, engine_services, openai_options,
                                s.metrics_enabled ? &inference_metrics : nullptr);
  api::admin::AdminApi admin(loaded, registry, pool, engine, &residency,
                             flm.ok() ? *flm : std::filesystem::path());
  api::admin::LoadApi load_api(registry, pool, residency);
  load_api.Register(router);
  api::admin::SystemApi system_api(inventory, sampler, admin, engine, flm);
  api::admin::ModelsApi models_api(registry, pool);
  openai.Register(router);
  if (s.metrics_enabled) api::RegisterMetricsRoute(router, metrics, &pool);
  admin.Register(router);
  // `zest pull`: downloads into the Hugging Face cache the registry serves from.
  models::HfStore pull_store(models::HfStore::DefaultRoot(config::ProcessEnv));
  models::DownloadOptions pull_options = PullOptionsFromEnv();
  auto& downloaded =
      metrics.AddCounter("zest_download_bytes_total", "Bytes received from model hubs by pulls.")
          .With({});
  pull_options.on_received = [&downloaded](uint64_t n) { downloaded.Inc(double(n)); };
  models::PullService pull_service(pull_store, models::HubConfigFromEnv(config::ProcessEnv),
                                   pull_options, &models::Catalog::Builtin());
  api::admin::PullApi pull_api(pull_service);
  pull_api.Register(router);
  system_api.Register(router);
  models_api.Register(router);
  api::admin::ObservabilityApi observability(s.metrics_enabled ? &inference_metrics : nullptr,
                                             admission, pool, registry, log_ring);
  observability.Register(router);

  // API keys, access rules, bind safety, TLS: see gateway_security.h.
  auto auth = http::Authenticator::Create({s.api_key, s.KeysFile()});
  Status secure = auth.ok() ? ApplyAccessRules(router, s.metrics_public) : auth.status();
  if (secure.ok()) secure = CheckBindSafety(s, **auth);
  if (!secure.ok()) {
    spdlog::error("{}", secure.message());
    fs::remove_all(*run_dir);
    return 2;
  }
  std::shared_ptr<http::Authenticator> authenticator = std::move(*auth);
  http::ServerOptions gateway = GatewayOptions(s, authenticator);
  if (s.metrics_enabled) {
    // Turned away at the gateway, before any model is known.
    gateway.on_rejected = [&inference_metrics](std::string_view reason) {
      inference_metrics.rejections.With({"", std::string(reason)}).Inc();
    };
  }
  http::Server server(io, std::move(gateway), router, api::openai::RenderHttpError);
  if (Status st = server.Listen(); !st.ok()) {
    spdlog::error("cannot listen on {}:{}: {}", s.host, s.port, st.message());
    fs::remove_all(*run_dir);
    return 1;
  }
  // Optional plain-HTTP listener that sends every request to HTTPS.
  std::unique_ptr<http::Server> redirect;
  http::Router no_routes;
  if (s.https_redirect_port != 0) {
    auto options = RedirectOptions(s, server.port());
    Status st = options.ok() ? Status::Ok() : options.status();
    if (st.ok()) {
      redirect = std::make_unique<http::Server>(io, std::move(*options), no_routes,
                                                api::openai::RenderHttpError);
      st = redirect->Listen();
    }
    if (!st.ok()) {
      spdlog::error("HTTPS redirect: {}", st.message());
      fs::remove_all(*run_dir);
      return 2;
    }
    redirect->Start();
    spdlog::info("redirecting http://{}:{} to HTTPS", s.host, s.https_redirect_port);
  }
  asio::signal_set hangup(io, SIGHUP);
  ReloadOnHangup(hangup, server, *authenticator);
  server.Start();
  spdlog::info("zest {} listening on {}://{}:{} (models in {})", ZEST_VERSION,
               server.tls() ? "https" : "http", s.host, server.port(), s.models_dir.string());

  // Engines are spawned from the I/O threads with PR_SET_PDEATHSIG, so those
  // threads stay alive until every engine has been stopped gracefully.
  std::vector<std::jthread> threads;
  auto work = asio::make_work_guard(io);
  for (int i = 0; i < s.io_threads; ++i) threads.emplace_back([&io] { io.run(); });

  spdlog::info("received signal {}, shutting down", signalled.get_future().get());
  server.StopAccepting();
  if (redirect) redirect->Stop();
  DrainRequests(admission, std::chrono::seconds(s.drain_timeout_s));
  server.Stop();
  reaper.Stop();
  watchdog.Stop();
  autoscaler.Stop();
  hangup.cancel();
  pool.StopAll();
  work.reset();
  io.stop();
  threads.clear();
  std::error_code ec;
  fs::remove_all(*run_dir, ec);
  spdlog::info("stopped");
  return 0;
}

}  // namespace zest::app
