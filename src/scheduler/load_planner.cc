#include "scheduler/load_planner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "engines/placement_needs.h"
#include "placement/cpu_model_plan.h"
#include "placement/cpu_threads.h"
#include "placement/memory_ledger.h"
#include "placement/replica.h"

namespace zest::scheduler {
namespace {

// The file a model's memory correction was learned from (memory_correction.h).
std::string CorrectionFile(const models::ModelEntry& model) {
  return placement::ModelFileIdentity(model.path, model.info.file_size, model.created);
}

// Configured speculative decoding that cannot be had (an unknown draft, a
// tokenizer that differs) leaves the model to load without it, said in the
// log: an explicit load's options were checked before (api/admin/load_api).
// A draft `auto` chose and then switched off for not paying
// (draft_acceptance.h) is left out, and the plan says why.
void AddSpeculative(const models::ModelEntry& model, const config::ModelSettings& settings,
                    const FindModel& find,
                    const std::optional<placement::DraftSwitchOff>& switched_off,
                    placement::PlacementRequest& request) {
  Result<SpeculativeChoice> choice = ChooseSpeculative(model, settings, find);
  if (!choice.ok()) {
    spdlog::warn("'{}' loads without speculative decoding: {}", model.name,
                 choice.status().message());
    return;
  }
  if (switched_off && choice->plan.kind == placement::SpeculativeKind::kDraft &&
      choice->plan.chosen_by_auto) {
    request.speculative.switched_off = switched_off;
    return;
  }
  request.speculative = std::move(choice->plan);
  request.draft = std::move(choice->draft);
}

}  // namespace

LoadPlanner::LoadPlanner(PlannerOptions options)
    : options_(std::move(options)), corrections_(options_.memory_corrections_file) {}

config::ModelSettings LoadPlanner::Configured(const std::string& model) const {
  auto it = options_.model_settings.find(model);
  return it != options_.model_settings.end() ? it->second : config::ModelSettings{};
}

placement::PlacementRequest LoadPlanner::RequestFor(const models::ModelEntry& model,
                                                    config::ModelSettings settings) const {
  placement::PlacementRequest request;
  if (!settings.cache_ram && options_.private_prompt_caches && options_.private_prompt_caches()) {
    settings.cache_ram = 0;
  }
  request.options = std::move(settings);
  request.model_name = model.name;
  request.default_ctx_per_slot = static_cast<uint64_t>(std::max(options_.ctx_size, 0));
  request.default_parallel = engines::DefaultParallel(model.info, options_.parallel);
  const std::string file = CorrectionFile(model);
  request.learned.cpu_only =
      corrections_.Get(model.name, file, placement::CorrectionScope::kCpuOnly);
  request.learned.with_gpus =
      corrections_.Get(model.name, file, placement::CorrectionScope::kWithGpus);
  // The NPU engine's rules for this model (engines/placement_needs.h).
  request.npu = options_.npu;
  request.npu.checkpoint = engines::NpuCheckpoint(request.options, model.catalog);
  request.npu.refused_options = engines::NpuRefusedOptions(request.options);
  std::error_code ec;
  if (!model.mmproj.empty()) request.mmproj_bytes = std::filesystem::file_size(model.mmproj, ec);
  if (ec) request.mmproj_bytes = 0;
  return request;
}

Result<placement::EnginePlan> LoadPlanner::Plan(const models::ModelEntry& model,
                                                const config::ModelSettings& settings,
                                                const LoadContext& context) const {
  if (model.info.speech || model.info.image || model.info.tts) {
    const engines::EngineChoice choice{
        .speech = model.info.speech, .images = model.info.image, .tts = model.info.tts};
    placement::CpuEngineNeeds needs = engines::CpuEngineNeedsFor(choice, model.info);
    // The vocoder's weights beside the backbone (and, for OuteTTS, its own llama-server).
    if (!model.vocoder.empty()) needs.engine_bytes += VocoderBytes(model.vocoder);
    return placement::PlanWholeOnCpu(model.info, context.free, needs);
  }
  placement::PlacementRequest request = RequestFor(model, settings);
  AddSpeculative(model, settings, options_.find_model, context.draft_switched_off, request);
  request.npu.held_by = context.npu_held_by;  // for an engine that runs one model at a time
  if (context.replica) {
    return placement::PlanReplica(model.info, context.free, request, context.used);
  }
  return placement::PlanPlacement(model.info, context.free, request);
}

uint64_t LoadPlanner::VocoderBytes(const std::filesystem::path& vocoder) const {
  const std::optional<FileIdentity> file = IdentityOf(vocoder);
  if (!file) return 0;  // as engines::VocoderBytes counts a file it cannot read
  return vocoder_bytes_.Get(*file, [&] { return engines::VocoderBytes(vocoder); });
}

void LoadPlanner::AssignCpuThreads(const models::ModelEntry& model, const std::vector<int>& running,
                                   placement::EnginePlan& plan) const {
  if (options_.threads > 0) {
    plan.cpu_threads = options_.threads;
    return;
  }
  if (!placement::ComputesOnCpu(plan, model.info.block_count)) return;
  const int cores = options_.cpu_cores > 0
                        ? options_.cpu_cores
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  plan.cpu_threads = placement::CpuThreadShare(cores, running);
  plan.explanation += " " + std::to_string(plan.cpu_threads) + " of " + std::to_string(cores) +
                      " CPU cores (" +
                      (running.empty() ? std::string("no other CPU engine")
                                       : std::to_string(running.size()) + " other CPU engine(s)") +
                      ").";
}

placement::ModelFit LoadPlanner::Fit(const models::ModelEntry& model,
                                     const std::vector<placement::PlacementDevice>& devices) const {
  // Speech and image models run on the CPU whole: the file's size is what counts.
  if (model.info.speech || model.info.image || model.info.tts) {
    return placement::FitOfSize(model.info.file_size, devices);
  }
  const placement::PlacementRequest request = RequestFor(model, Configured(model.name));
  Result<placement::EnginePlan> plan = placement::PlanPlacement(model.info, devices, request);
  // For "no": the model on the CPU alone at the context it was refused at.
  const uint64_t trained = model.info.context_length > 0 ? model.info.context_length : 4096;
  placement::LoadShape shape;
  shape.ctx_per_slot = std::min<uint64_t>(
      request.options.ctx_size.value_or(
          request.default_ctx_per_slot > 0 ? request.default_ctx_per_slot : 4096),
      trained);
  shape.parallel = request.options.parallel.value_or(request.default_parallel);
  uint64_t cpu_only = 0;
  for (const auto& m : placement::PredictMemory(model.info, shape, placement::Layout{}))
    cpu_only += m.Total();
  return placement::FitOfPlan(plan, model.info, devices, cpu_only);
}

// Learned against the ledger's own figure, without what earlier loads
// added: otherwise each correction would be measured against itself and
// drift back towards 1. The RSS is taken right after the load, so with
// mmap'd weights it errs low (pages not yet touched are not counted); the
// correction only ever raises a prediction for that reason
// (MemoryCorrection::Factor).
Result<placement::MemoryCorrection> LoadPlanner::Learn(const models::ModelEntry& model,
                                                       const placement::EnginePlan& plan,
                                                       uint64_t measured) const {
  return corrections_.Record(model.name, CorrectionFile(model), plan.correction_scope,
                             LedgerCpuBytes(plan), measured);
}

uint64_t LedgerCpuBytes(const placement::EnginePlan& plan) {
  return plan.memory.front().memory.AtLoad();
}

}  // namespace zest::scheduler
