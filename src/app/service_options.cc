#include "app/service_options.h"

#include <spdlog/spdlog.h>

#include "app/placement_wiring.h"
#include "core/duration.h"
#include "core/private_dirs.h"
#include "core/strings.h"
#include "engines/placement_needs.h"
#include "engines/recipe_verdicts.h"
#include "http/cors.h"

namespace zest::app {

namespace fs = std::filesystem;

scheduler::PoolOptions PoolOptionsFor(const config::Settings& s, const fs::path& run_dir,
                                      const hardware::Inventory& inventory,
                                      std::shared_ptr<const engines::EngineSet> engine_set,
                                      RpcWorkers& rpc_workers) {
  scheduler::PoolOptions o;
  o.run_dir = run_dir;
  o.log_dir = s.LogDir();
  o.pid_dir = s.EnginePidDir();
  o.ctx_size = s.ctx_size;
  // The engine also runs the slots reserved for high priority.
  o.parallel = s.parallel + s.reserved_slots;
  o.threads = s.threads;
  o.cpu_cores = inventory.cpu.physical_cores;
  o.ready_timeout = std::chrono::seconds(s.ready_timeout_s);
  o.memory_wait = std::chrono::seconds(s.memory_wait_s);
  o.restart_backoff = std::chrono::milliseconds(s.restart_backoff_ms);
  o.restart_backoff_max = std::chrono::seconds(s.restart_backoff_max_s);
  o.discover_devices = DeviceDiscovery(inventory, engine_set, s);
  if (!rpc_workers.empty()) {
    o.remote_devices = [&rpc_workers](const std::vector<std::string>& in_use) {
      return rpc_workers.Check(in_use);
    };
  }
  // The NPU's verdict does not depend on the devices engines see: not probed.
  o.npu = engines::NpuRequestFor(
      inventory, engines::RecipeVerdicts(inventory, engines::FactsOf(*engine_set, nullptr)));
  o.engines = std::move(engine_set);
  o.model_settings = s.model_settings;
  o.share_prompt_cache = s.share_prompt_cache;
  o.model_roots = {s.models_dir, s.hf_hub_cache};
  o.hidden_dirs = {s.home};
  o.memory_corrections_file = s.home / "memory_corrections.json";
  if (s.save_slots) o.slot_dir = s.SlotDir();
  if (s.split_prefill_tokens > 0) {
    // Handed-over slots go through the run directory, which engines already write.
    o.handoff_dir = run_dir / "handoff";
    if (Status st = CreatePrivateDirectories(o.handoff_dir); !st.ok()) {
      spdlog::error("{}", st.message());
    }
    spdlog::info(
        "experimental prefill/decode split: prompts of {}+ tokens prefill on another "
        "instance",
        s.split_prefill_tokens);
  }
  return o;
}

scheduler::PoolOptions WithModelLookup(scheduler::PoolOptions options,
                                       models::ModelRegistry& registry) {
  options.find_model = [&registry](const std::string& name) { return registry.Find(name); };
  return options;
}

scheduler::PoolOptions WithKeysRequired(scheduler::PoolOptions options,
                                        std::shared_ptr<const http::Authenticator> auth) {
  options.keys_required = [auth = std::move(auth)] { return auth && auth->enabled(); };
  return options;
}

scheduler::PoolOptions WithSessionTier(scheduler::PoolOptions options,
                                       scheduler::SessionTier& tier) {
  options.session_tier = &tier;
  return options;
}

scheduler::SessionTierOptions SessionTierOptionsFor(const config::Settings& s) {
  scheduler::SessionTierOptions o;
  if (s.save_slots) o.slot_root = s.SlotDir();
  o.disk_budget_bytes = s.session_cache_mb << 20;
  o.prompt_budget_bytes = static_cast<std::size_t>(s.session_prompts_mb) << 20;
  return o;
}

scheduler::AdmissionLimits AdmissionLimitsFor(const config::Settings& s) {
  return {s.parallel, static_cast<std::size_t>(s.max_queue), s.max_queued_tokens,
          std::chrono::seconds(s.aging_s), s.reserved_slots};
}

scheduler::AutoscaleParams AutoscaleParamsFor(const config::Settings& s) {
  scheduler::AutoscaleParams p;
  p.enabled = s.autoscale && s.autoscale_max_replicas > 1;
  p.max_replicas = s.autoscale_max_replicas;
  p.window = std::chrono::seconds(s.autoscale_window_s);
  p.idle = std::chrono::seconds(s.autoscale_idle_s);
  return p;
}

api::ChatRouteOptions ChatRouteOptionsFor(const config::Settings& s) {
  api::ChatRouteOptions o;
  o.queue_timeout = std::chrono::seconds(s.queue_timeout_s);
  o.limits = {s.max_messages, s.max_tokens_cap, s.max_choices, s.max_prompts, s.max_inputs};
  o.default_max_tokens = s.default_max_tokens;
  o.audio_memory_bytes = static_cast<uint64_t>(s.max_audio_memory_mb) << 20;
  o.max_speech_chars = s.max_speech_chars;
  api::ImageLimits images{.max_images = s.max_images,
                          .max_image_bytes = static_cast<uint64_t>(s.max_image_mb) << 20,
                          .max_image_pixels = static_cast<uint64_t>(s.max_image_pixels),
                          .max_request_pixels = static_cast<uint64_t>(s.max_request_pixels),
                          .url_hosts = {},
                          .url_networks = {}};
  // An entry written as an address or range allows those addresses; a name
  // allows that host at its globally reachable addresses.
  for (const std::string& host : http::SplitOrigins(s.image_url_hosts)) {
    if (std::optional<http::IpNetwork> network = http::IpNetwork::Parse(host)) {
      images.url_networks.push_back(*network);
    } else {
      images.url_hosts.push_back(AsciiLower(host));
    }
  }
  o.images = std::make_shared<const api::ChatImages>(std::move(images));
  // Validated when the settings were loaded. The same for every API.
  o.max_keep_alive =
      ParseDuration(s.max_keep_alive.empty() ? s.keep_alive : s.max_keep_alive).value();
  o.share_prompt_cache = s.share_prompt_cache;
  return o;
}

models::DownloadOptions PullOptionsFor(const config::Settings& s, metrics::Registry& metrics) {
  models::DownloadOptions o;
  o.connections = s.pull_connections;
  o.stall_timeout_s = s.pull_stall_timeout_s;
  auto* downloaded =
      &metrics.AddCounter("zest_download_bytes_total", "Bytes received from model hubs by pulls.")
           .With({});
  o.on_received = [downloaded](uint64_t n) { downloaded->Inc(double(n)); };
  return o;
}

std::vector<models::ModelAlias> AliasesFor(const config::Settings& s) {
  std::vector<models::ModelAlias> aliases;
  for (const auto& [pattern, target] : s.aliases) aliases.push_back({pattern, target});
  return aliases;
}

fs::path ManifestPathFor(const config::Settings& s) {
  if (s.cluster_manifest.empty() || s.cluster_manifest.is_absolute()) return s.cluster_manifest;
  return s.home / s.cluster_manifest;
}

}  // namespace zest::app
