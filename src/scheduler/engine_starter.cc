#include "scheduler/engine_starter.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cctype>
#include <cstdio>

#include "core/private_dirs.h"
#include "http/upstream_client.h"
#include "models/model_file_safety.h"
#include "models/store_naming.h"
#include "placement/memory_ledger.h"
#include "placement/replica.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

constexpr auto kReadyPollInterval = std::chrono::milliseconds(20);

}  // namespace

std::string SafeFileName(std::string name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    // A leading '.' too: no name becomes "." or "..", or a hidden file.
    const bool plain = std::isalnum(c) != 0 || c == '-' || (c == '.' && i > 0);
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += {'_', kHex[c >> 4], kHex[c & 0xf]};
    }
  }
  return out;
}

std::string OldSafeFileName(std::string name) {
  for (char& c : name) {
    if (c == '/' || c == ':') c = '_';
  }
  return name;
}

std::string FailureReason(const engines::EngineProcess& process) {
  std::vector<std::string> tail = process.output().Tail(40);
  std::string errors;
  for (const std::string& line : tail) {
    if (line.find("error") != std::string::npos || line.find("failed") != std::string::npos) {
      errors += (errors.empty() ? "" : "\n") + line;
    }
  }
  if (!errors.empty()) return errors;
  std::string last;
  for (std::size_t i = tail.size() > 8 ? tail.size() - 8 : 0; i < tail.size(); ++i) {
    last += (last.empty() ? "" : "\n") + tail[i];
  }
  return last;
}

// A GGUF file and, when it is the first of a split model, the other shards
// as zest names them (a store model's snapshot links): llama.cpp finds them
// by name beside the first. Each is bound read-only into the sandbox, and
// nothing else of its directory: the models directory may hold zest's own
// files.
std::vector<fs::path> WithShards(const fs::path& first) {
  std::vector<fs::path> files = {first};
  if (auto shard = models::ParseShard(first.string()); shard && shard->count > 1) {
    for (int i = 1; i <= shard->count; ++i) {
      char suffix[32];
      std::snprintf(suffix, sizeof(suffix), "-%05d-of-%05d.gguf", i, shard->count);
      fs::path file = shard->base + suffix;
      std::error_code ec;
      if (file != first && fs::exists(file, ec)) files.push_back(file);
    }
  }
  return files;
}

std::vector<fs::path> ModelFiles(const models::ModelEntry& model) {
  std::vector<fs::path> files = WithShards(model.path);
  if (!model.mmproj.empty()) files.push_back(model.mmproj);
  if (!model.vocoder.empty()) files.push_back(model.vocoder);
  return files;
}

engines::EnginePlacement EnginePlacementFor(const placement::EnginePlan& plan) {
  engines::EnginePlacement p;
  p.devices = plan.gpu_devices;
  p.rpc_servers = plan.rpc_workers;
  p.gpu_layers = plan.n_gpu_layers;
  p.tensor_split = plan.tensor_split;
  p.n_cpu_moe = plan.n_cpu_moe;
  p.mmproj_on_cpu = plan.mmproj_on_cpu;
  p.cache_type_k = placement::KvTypeName(plan.cache_type_k);
  p.cache_type_v = placement::KvTypeName(plan.cache_type_v);
  p.flash_attention = plan.flash_attention;
  p.no_mmap = plan.no_mmap;
  p.mlock = plan.mlock;
  p.batch = plan.batch;
  p.ubatch = plan.ubatch;
  p.cache_ram_mib = plan.cache_ram_mib;
  return p;
}

EngineStarter::EngineStarter(StarterOptions options)
    : options_(std::move(options)),
      launcher_(options_.launcher ? options_.launcher
                                  : std::make_shared<engines::ProcessLauncher>()) {}

Result<std::shared_ptr<Instance>> EngineStarter::Start(const models::ModelEntry& model,
                                                       const placement::EnginePlan& plan,
                                                       const StartRequest& request) const {
  if (!options_.engines) return Unavailable("no engine is set up");
  ZEST_ASSIGN_OR_RETURN(const engines::EngineAdapter* engine,
                        options_.engines->For({.speech = model.info.speech,
                                               .on_npu = plan.on_npu,
                                               .images = model.info.image,
                                               .tts = model.info.tts}));
  engines::LaunchSpec spec = SpecFor(model, plan, request);
  if (!engine->saves_slots()) spec.slot_dir.clear();
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<engines::EngineProcess> process,
                        Spawn(*engine, model, spec, plan, request.replica));
  auto instance = std::make_shared<Instance>(model.name, request.socket, std::move(process),
                                             placement::PrimaryDevice(plan), plan.parallel);
  instance->engine = engine;
  instance->engine_model = engine->EngineModelName(spec);
  instance->slot_dir = spec.slot_dir;
  instance->prompt_cache = placement::PromptCacheShapeOf(plan);
  return instance;
}

engines::LaunchSpec EngineStarter::SpecFor(const models::ModelEntry& model,
                                           const placement::EnginePlan& plan,
                                           const StartRequest& request) const {
  engines::LaunchSpec spec;
  spec.model_name = model.name;
  spec.model_file = model.path;
  spec.model_files = ModelFiles(model);
  spec.mmproj = model.mmproj;
  spec.vocoder = model.vocoder;
  spec.embeddings = model.info.embedding;
  spec.reranking = model.info.reranker;
  spec.socket = request.socket;
  spec.slot_dir = request.slot_dir;
  spec.parallel = plan.parallel;
  spec.ctx_per_slot = plan.ctx_per_slot;
  spec.threads = plan.cpu_threads;
  spec.software_gpu = plan.software_gpu;
  spec.placement = EnginePlacementFor(plan);
  spec.extra_args = plan.extra_args;
  const placement::SpeculativePlan& speculative = plan.speculative;
  spec.speculative.spec_type =
      engines::SpecTypeFor(placement::SpeculativeKindName(speculative.kind));
  if (speculative.kind == placement::SpeculativeKind::kDraft) {
    spec.speculative.draft_model = speculative.draft_file;
    spec.speculative.draft_device = speculative.draft_device;
    for (fs::path& file : WithShards(speculative.draft_file)) {  // read-only in the sandbox
      spec.model_files.push_back(std::move(file));
    }
  }
  spec.speculative.max_tokens = speculative.max_tokens;
  spec.speculative.min_tokens = speculative.min_tokens;
  spec.engine_checkpoint = plan.engine_checkpoint;
  spec.model_roots = options_.model_roots;
  spec.hidden = options_.hidden_dirs;
  spec.keys_required = options_.keys_required && options_.keys_required();
  return spec;
}

Result<std::unique_ptr<engines::EngineProcess>> EngineStarter::Spawn(
    const engines::EngineAdapter& engine, const models::ModelEntry& model,
    const engines::LaunchSpec& spec, const placement::EnginePlan& plan, bool replica) const {
  // Each engine has a directory of its own for its socket, the only
  // directory of the run directory its sandbox sees.
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(spec.socket.parent_path()));
  if (!spec.slot_dir.empty()) {
    ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(spec.slot_dir));  // prompts live here
  }
  ZEST_ASSIGN_OR_RETURN(engines::LaunchCommand command, engine.Command(spec));
  // Every file it reads: shards, a draft and its shards, projector, vocoder.
  ZEST_RETURN_IF_ERROR(models::CheckModelFilesSafe(model, spec.model_files));
  std::error_code ec;
  fs::remove(spec.socket, ec);
  engines::SpawnOptions spawn;
  spawn.argv = std::move(command.argv);
  // The engine's environment is its own, never zest's (secrets, settings).
  spawn.env = std::move(command.env);
  spawn.clear_env = true;
  // A replica writes its own log: MODEL@DEVICE.log beside the first's MODEL.log.
  std::string log_name = SafeFileName(model.name);
  if (replica) log_name += "@" + SafeFileName(placement::PrimaryDevice(plan));
  spawn.log_file = options_.log_dir / (log_name + ".log");
  spawn.pid_dir = options_.pid_dir;
  return launcher_->Launch(spawn);
}

asio::awaitable<Status> EngineStarter::WaitReady(asio::any_io_executor executor,
                                                 Instance& instance) const {
  auto deadline = std::chrono::steady_clock::now() + options_.ready_timeout;
  asio::steady_timer timer(executor);
  while (true) {
    if (std::optional<int> exit = instance.process().ExitStatus()) {
      // Its output names host paths and may echo what it read: the log
      // (which admins read at /api/v1/logs) gets it, the client does not.
      const std::string what =
          "engine for '" + instance.model() + "' " + engines::Process::DescribeExit(*exit);
      spdlog::warn("{} while loading; its last output:\n{}", what,
                   FailureReason(instance.process()));
      co_return EngineFailed(what + " while loading (its output is in zest's log)");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      co_return Status(ErrorCode::kTimeout,
                       "engine for '" + instance.model() + "' not ready after " +
                           std::to_string(options_.ready_timeout.count()) + " s");
    }
    http::UpstreamRequest health;
    health.target = instance.ready_path();
    health.connect_timeout = std::chrono::milliseconds(500);
    auto response = co_await http::SendUpstream(executor, instance.socket().string(), health);
    if (response.ok() && (*response)->status() == 200) co_return Status::Ok();
    timer.expires_after(kReadyPollInterval);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

}  // namespace zest::scheduler
