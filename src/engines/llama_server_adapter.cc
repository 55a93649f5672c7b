#include "engines/llama_server_adapter.h"

#include <nlohmann/json.hpp>

#include "engines/engine_flags.h"
#include "engines/llama_server_flags.h"
#include "engines/llama_token_count.h"
#include "engines/rpc_backend.h"

namespace zest::engines {

Result<LaunchCommand> LlamaServerAdapter::Command(const LaunchSpec& spec) const {
  if (!located_.ok()) return Unavailable(located_.status().message());
  ZEST_ASSIGN_OR_RETURN(std::vector<EngineFlag> extra, CheckLlamaServerArgs(spec.extra_args));
  SandboxMounts mounts;
  mounts.hidden = spec.hidden;
  ZEST_ASSIGN_OR_RETURN(mounts.readonly, ResolveFlagPaths(extra, spec.model_roots));
  for (const auto& file : spec.model_files) mounts.readonly.push_back(file);
  mounts.writable = {spec.socket.parent_path()};
  if (!spec.slot_dir.empty()) mounts.writable.push_back(spec.slot_dir);  // prompts live here

  LlamaServerOptions o;
  o.model = spec.model_file;
  o.alias = spec.model_name;
  o.socket = spec.socket;
  o.mmproj = spec.mmproj;
  o.threads = spec.threads;
  o.embeddings = spec.embeddings;
  o.reranking = spec.reranking;
  o.slot_save_path = spec.slot_dir;
  // The context asked for is per request (slot); llama-server splits -c
  // between its slots, so it gets ctx × parallel.
  o.parallel = spec.parallel;
  o.ctx_size = static_cast<int>(spec.ctx_per_slot) * spec.parallel;
  o.placement = spec.placement;
  o.speculative = spec.speculative;
  o.extra = FlagArgv(extra);
  // Workers are reached over the network: such an engine shares zest's
  // network namespace (docs/scale-out.md says what that opens).
  const bool uses_workers = o.placement && !o.placement->rpc_servers.empty();
  if (uses_workers && !spec.keys_required) {
    // On zest's network it reaches zest's port, where without keys every
    // route (admin ones included) answers anyone on loopback.
    return Status(
        ErrorCode::kConflict,
        "'" + spec.model_name +
            "' would run with RPC workers, which puts its engine on zest's own network where it "
            "can reach zest's admin API; zest has no API keys: add one (`zest keys add NAME "
            "--scope admin`, or --api-key) to use RPC workers");
  }
  if (uses_workers) {
    ZEST_ASSIGN_OR_RETURN(o.placement->devices,
                          EngineDeviceNames(o.placement->devices, o.placement->rpc_servers));
  }

  LaunchCommand command;
  command.argv = located_->Command(LlamaServerArgs(o), mounts, /*own_network=*/!uses_workers);
  // Allocations of 4 MiB and more straight from the kernel and back to it
  // when freed: the prompt cache's conversation states (tens to hundreds of
  // MiB each) come and go as conversations take turns, and glibc's sliding
  // threshold put them on its heap, which kept one or two freed states
  // resident beside the cache (the engine's RSS went 35 MiB over a 40 MiB
  // cache in one run of two, prompt_cache.test.mjs). Smaller ones, as a
  // sampler's per-token arrays, stay on the heap.
  std::vector<std::string> env = {"MALLOC_MMAP_THRESHOLD_=4194304"};
  // llvmpipe runs the "GPU" layers on threads of its own: as many as the
  // engine's share of the cores, not one per core.
  if (spec.software_gpu && spec.threads > 0) {
    env.push_back("LP_NUM_THREADS=" + std::to_string(spec.threads));
  }
  command.env = located_->Environment(env);
  return command;
}

Result<EngineCall> LlamaServerAdapter::TokenCountCall(const ChatRequest& request,
                                                      const std::string& model) const {
  return EngineCall{std::string(kTokenCountPath), "application/json",
                    TokenCountBody(request, model)};
}

Result<uint64_t> LlamaServerAdapter::ReadTokenCount(int status, std::string_view body) const {
  return ReadTokenCountAnswer(status, body);
}

bool LlamaServerAdapter::AsksAsStream(const ChatRequest& request) const {
  const bool generates =
      request.kind == Capability::kChat || request.kind == Capability::kCompletions;
  return generates && !request.stream && !WantsLogprobs(request);
}

std::optional<std::string> LlamaServerAdapter::PathFor(Capability capability) const {
  switch (capability) {
    case Capability::kChat:
      return "/v1/chat/completions";
    case Capability::kCompletions:
      return "/v1/completions";
    case Capability::kEmbeddings:
      return "/v1/embeddings";
    case Capability::kTokenize:
      return "/tokenize";
    case Capability::kDetokenize:
      return "/detokenize";
    case Capability::kRerank:
      return "/v1/rerank";
    default:
      return std::nullopt;
  }
}

Status LlamaServerAdapter::CheckExtraArgs(
    const std::vector<std::string>& args,
    const std::vector<std::filesystem::path>& model_roots) const {
  ZEST_ASSIGN_OR_RETURN(std::vector<EngineFlag> flags, CheckLlamaServerArgs(args));
  return ResolveFlagPaths(flags, model_roots).status();
}

namespace {

constexpr EngineMetric kReexported[] = {
    {"prompt_tokens_total", "zest_engine_prompt_tokens_total", "counter"},
    {"prompt_tokens_cached_total", "zest_engine_prompt_tokens_cached_total", "counter"},
    {"prompt_seconds_total", "zest_engine_prompt_seconds_total", "counter"},
    {"tokens_predicted_total", "zest_engine_tokens_predicted_total", "counter"},
    {"tokens_predicted_seconds_total", "zest_engine_tokens_predicted_seconds_total", "counter"},
    {"n_decode_total", "zest_engine_decode_calls_total", "counter"},
    {"prompt_tokens_seconds", "zest_engine_prompt_tokens_per_second", "gauge"},
    {"predicted_tokens_seconds", "zest_engine_predicted_tokens_per_second", "gauge"},
    {"requests_processing", "zest_engine_requests_processing", "gauge"},
    {"requests_deferred", "zest_engine_requests_deferred", "gauge"},
    {"n_busy_slots_per_decode", "zest_engine_busy_slots_per_decode", "gauge"},
};

}  // namespace

std::optional<EngineMetrics> LlamaServerAdapter::metrics() const {
  return EngineMetrics{"/metrics", "llamacpp:", kReexported};
}

Result<EngineInfo> LlamaServerAdapter::ProbeDevices() const {
  if (!located_.ok()) return located_.status();
  return ProbeEngine(*located_);
}

Result<EngineDevice> LlamaServerAdapter::ProbeRpcWorker(const std::string& endpoint) const {
  if (!located_.ok()) return located_.status();
  // A worker that does not answer within this is as good as gone (a dropped
  // packet would otherwise hold the probe for the kernel's connect timeout).
  constexpr auto kWorkerProbeTimeout = std::chrono::seconds(5);
  return engines::ProbeRpcWorker(*located_, endpoint, kWorkerProbeTimeout);
}

EngineDescription LlamaServerAdapter::Describe(const Result<EngineInfo>* probed) const {
  EngineDescription d = EngineAdapter::Describe(located_.ok() ? probed : nullptr);
  DescribeLocation(located_, d);
  return d;
}

}  // namespace zest::engines
