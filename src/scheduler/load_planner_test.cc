// LoadPlanner on a real (synthetic) model file: which planner each kind of
// model gets, the placement request it builds, the CPU thread share, the
// fit verdict, and a measurement learned and applied to the next request.
#include "scheduler/load_planner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/testing/temp_dir.h"
#include "engines/placement_needs.h"
#include "placement/cpu_model_plan.h"
#include "placement/cpu_threads.h"
#include "tools/synthetic_model.h"

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

class LoadPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "models");
    auto spec = tools::PresetSpec("tiny");
    ASSERT_TRUE(spec.ok());
    ASSERT_TRUE(tools::WriteSyntheticModel(*spec, root_ / "models" / "m.gguf").ok());
    models::ModelRegistry registry(root_ / "models", root_ / "user_models.json");
    model_ = registry.Find("m").value();
  }

  static std::vector<placement::PlacementDevice> Cpu(uint64_t free = 8ull << 30) {
    placement::PlacementDevice cpu;
    cpu.name = placement::kCpuDevice;
    cpu.total_bytes = cpu.free_bytes = free;
    return {cpu};
  }

  zest::testing::TempDir tmp_{"planner"};
  const fs::path root_ = tmp_.path();
  models::ModelEntry model_;
};

TEST_F(LoadPlannerTest, SpeechAndImageModelsRunWholeOnTheCpu) {
  LoadPlanner planner({});
  LoadContext context{
      .free = Cpu(), .replica = false, .used = {}, .npu_held_by = {}, .draft_switched_off = {}};
  models::ModelEntry ears = model_;
  ears.info.speech = true;
  models::ModelEntry pics = model_;
  pics.info.image = true;
  // The engine's own needs beside the weights (engines/placement_needs.h).
  EXPECT_EQ(planner.Plan(ears, {}, context)->memory[0].memory.overhead,
            engines::kSpeechEngineBytes);
  EXPECT_EQ(planner.Plan(pics, {}, context)->memory[0].memory.compute, engines::kImageComputeBytes);
  Result<placement::EnginePlan> chat = planner.Plan(model_, {}, context);
  ASSERT_TRUE(chat.ok()) << chat.status().message();
  EXPECT_FALSE(chat->on_npu);
  EXPECT_NE(chat->explanation.find("CPU"), std::string::npos) << chat->explanation;
  context.free = Cpu(1 << 20);  // 1 MiB: nothing fits
  EXPECT_EQ(planner.Plan(model_, {}, context).status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_EQ(planner.Fit(pics, Cpu(1 << 20)).verdict, "no");
}

TEST_F(LoadPlannerTest, TheRequestHasTheServersDefaultsAndTheModelsOptions) {
  config::ModelSettings configured;
  configured.parallel = 3;
  PlannerOptions options;
  options.ctx_size = 2048;
  options.parallel = 6;
  options.model_settings = {{"m", configured}};
  LoadPlanner planner(options);
  EXPECT_EQ(planner.Configured("m").parallel, 3);
  EXPECT_FALSE(planner.Configured("other").parallel.has_value());
  placement::PlacementRequest request = planner.RequestFor(model_, planner.Configured("m"));
  EXPECT_EQ(request.default_ctx_per_slot, 2048u);
  EXPECT_EQ(request.default_parallel, 6);
  EXPECT_EQ(request.options.parallel, 3);
  // A pooling embedding engine needs a power of two of sequences.
  models::ModelEntry embedder = model_;
  embedder.info.embedding = true;
  EXPECT_EQ(planner.RequestFor(embedder, {}).default_parallel, 4);
  // A catalog model's NPU build comes from the catalog unless its options name one.
  models::ModelEntry catalog = model_;
  catalog.catalog = "Qwen3-0.6B-GGUF";
  EXPECT_EQ(planner.RequestFor(catalog, {}).npu.checkpoint, "qwen3:0.6b");
  config::ModelSettings own;
  own.flm = "llama3.2:1b";
  EXPECT_EQ(planner.RequestFor(catalog, own).npu.checkpoint, "llama3.2:1b");
}

TEST_F(LoadPlannerTest, CpuEnginesShareTheCoresUnlessTheUserSetsThreads) {
  PlannerOptions options;
  options.cpu_cores = 8;
  LoadPlanner shared(options);
  placement::EnginePlan plan = shared
                                   .Plan(model_, {},
                                         {.free = Cpu(),
                                          .replica = false,
                                          .used = {},
                                          .npu_held_by = {},
                                          .draft_switched_off = {}})
                                   .value();
  ASSERT_TRUE(placement::ComputesOnCpu(plan, model_.info.block_count));
  shared.AssignCpuThreads(model_, {6}, plan);
  EXPECT_EQ(plan.cpu_threads, placement::CpuThreadShare(8, {6}));
  EXPECT_LT(plan.cpu_threads, 8);
  EXPECT_NE(plan.explanation.find("of 8 CPU cores (1 other CPU engine(s))"), std::string::npos)
      << plan.explanation;
  options.threads = 3;
  LoadPlanner fixed(options);
  fixed.AssignCpuThreads(model_, {6}, plan);
  EXPECT_EQ(plan.cpu_threads, 3);
}

TEST_F(LoadPlannerTest, AMeasurementIsLearnedAndRaisesTheNextPrediction) {
  LoadPlanner planner({});
  LoadContext context{
      .free = Cpu(), .replica = false, .used = {}, .npu_held_by = {}, .draft_switched_off = {}};
  placement::EnginePlan first = planner.Plan(model_, {}, context).value();
  EXPECT_FALSE(planner.RequestFor(model_, {}).learned.cpu_only.has_value());
  const uint64_t ledger = LedgerCpuBytes(first);
  Result<placement::MemoryCorrection> learned = planner.Learn(model_, first, 2 * ledger);
  ASSERT_TRUE(learned.ok()) << learned.status().message();
  EXPECT_GT(learned->ratio, 1.0);
  ASSERT_TRUE(planner.RequestFor(model_, {}).learned.cpu_only.has_value());
  placement::EnginePlan second = planner.Plan(model_, {}, context).value();
  EXPECT_GT(second.BytesOn(placement::kCpuDevice), first.BytesOn(placement::kCpuDevice));
  EXPECT_EQ(LedgerCpuBytes(second), ledger) << "measured against the ledger's own figure";
}

}  // namespace
}  // namespace zest::scheduler
