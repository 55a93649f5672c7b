// NPU placement (npu.h) through PlanPlacement, engine-neutral: a FAKE NPU
// engine described as engines/ would describe one (what it needs and
// allows), on the FAKE Ryzen AI 300 laptop (XDNA2 NPU + Radeon 890M) and
// the FAKE RX 7900 XTX desktop (no NPU) in tests/fixtures/hardware.
// engines/npu_engine_test.cc runs the same plans with FastFlowLM's real
// description and recipe verdicts.
#include "placement/npu.h"

#include <gtest/gtest.h>

#include "hardware/test_fixtures.h"
#include "placement/eviction.h"
#include "placement/fit.h"
#include "placement/policy.h"
#include "placement/test_models.h"

namespace zest::placement {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kRuntimeBytes = 300ull << 20;
constexpr uint64_t kMinContext = 1024;

struct Machine {
  std::vector<PlacementDevice> devices;
  NpuRequest npu;
};

// `installed`: whether the FAKE NPU engine is (the verdict usable).
Machine Fixture(const std::string& fixture, bool installed, uint64_t memory_limit = 0) {
  hardware::Inventory inventory = hardware::Discover(hardware::FixtureRoots(fixture), {false});
  Machine m;
  m.devices = DevicesFromInventory(
      inventory, {{"Vulkan0", "AMD Radeon 890M Graphics (RADV GFX1150)"}}, memory_limit);
  m.npu.present = !inventory.npus.empty();
  m.npu.description = m.npu.present ? inventory.npus.front().name : "";
  m.npu.usable = m.npu.present && installed;
  m.npu.reason = installed ? "FAKE-NPU-ENGINE is installed" : "install FAKE-NPU-ENGINE to use it";
  m.npu.engine = {"FAKE-NPU-ENGINE", "(set its `fake` option)", kRuntimeBytes, kMinContext, true};
  return m;
}

Result<EnginePlan> Plan(const Machine& machine, const std::string& checkpoint,
                        config::ModelSettings options = {}, const std::string& held_by = "",
                        uint64_t default_ctx = 4096, const std::string& refused = "") {
  PlacementRequest request;
  request.model_name = "llama";
  request.options = std::move(options);
  request.default_ctx_per_slot = default_ctx;
  request.npu = machine.npu;
  request.npu.checkpoint = checkpoint;
  request.npu.held_by = held_by;
  request.npu.refused_options = refused;
  return PlanPlacement(testing::SparseLlama3_8B(), machine.devices, request);
}

config::ModelSettings Device(const std::string& device) {
  config::ModelSettings o;
  o.device = device;
  return o;
}

TEST(NpuPlacementTest, AModelWithAnNpuBuildRunsOnTheUsableNpu) {
  auto plan = Plan(Fixture("ryzen-ai-300-laptop", true), "llama3.1:8b");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(plan->on_npu);
  EXPECT_EQ(plan->engine_checkpoint, "llama3.1:8b");
  EXPECT_TRUE(plan->gpu_devices.empty());
  EXPECT_EQ(plan->parallel, 1);
  EXPECT_EQ(plan->ctx_per_slot, 4096u);
  ASSERT_EQ(plan->memory.size(), 1u);
  EXPECT_EQ(plan->memory[0].device, "NPU");
  // The GGUF's weights, one sequence's f16 KV cache (32 blocks × 4096 cells ×
  // 8 heads × (128 + 128) × 2 bytes = 512 MiB), and the runtime.
  EXPECT_EQ(plan->memory[0].memory.weights, testing::SparseLlama3_8B().file_size);
  EXPECT_EQ(plan->memory[0].memory.kv_cache, 512ull << 20);
  EXPECT_EQ(plan->memory[0].memory.overhead, kRuntimeBytes);
  EXPECT_NE(
      plan->explanation.find("on the NPU (AMD XDNA2 NPU (Strix/Krackan)) with FAKE-NPU-ENGINE "
                             "as 'llama3.1:8b': FAKE-NPU-ENGINE is installed"),
      std::string::npos)
      << plan->explanation;
  // `zest list` says where it would run.
  EXPECT_EQ(
      FitOfPlan(plan, testing::SparseLlama3_8B(), Fixture("ryzen-ai-300-laptop", true).devices, 0)
          .verdict,
      "npu");
}

TEST(NpuPlacementTest, FallsBackToTheGpuAndSaysWhyNotTheNpu) {
  struct Case {
    std::string name;
    bool installed;
    std::string held_by;  // the NPU's current model
    config::ModelSettings options;
    std::string refused;  // what the engine says of the options
    std::string why;      // in the explanation
  };
  config::ModelSettings on_gpu;
  on_gpu.device = "Vulkan0";
  const std::vector<Case> cases = {
      {"not installed", false, "", {}, "", "Not on the NPU: install FAKE-NPU-ENGINE to use it."},
      {"held by another model",
       true,
       "qwen",
       {},
       "",
       "Not on the NPU: it runs 'qwen' (FAKE-NPU-ENGINE holds one model at a time)."},
      {"options the engine refuses",
       true,
       "",
       {},
       "n_gpu_layers, which FAKE-NPU-ENGINE ignores",
       "Not on the NPU: its options set n_gpu_layers, which FAKE-NPU-ENGINE ignores."},
      {"another device named", true, "", on_gpu, "",
       "Not on the NPU: its device option names Vulkan0."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plan = Plan(Fixture("ryzen-ai-300-laptop", c.installed), "llama3.1:8b", c.options,
                     c.held_by, 4096, c.refused);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_FALSE(plan->on_npu);
    EXPECT_EQ(plan->gpu_devices, std::vector<std::string>{"Vulkan0"});
    EXPECT_NE(plan->explanation.find(c.why), std::string::npos) << plan->explanation;
  }
  // An engine that runs several models at once is not held by one.
  Machine shared = Fixture("ryzen-ai-300-laptop", true);
  shared.npu.engine.one_model_at_a_time = false;
  auto beside = Plan(shared, "llama3.1:8b", {}, "qwen");
  ASSERT_TRUE(beside.ok());
  EXPECT_TRUE(beside->on_npu);
}

TEST(NpuPlacementTest, NoWordAboutTheNpuForAModelWithoutAnNpuBuildOrAMachineWithoutOne) {
  auto laptop = Plan(Fixture("ryzen-ai-300-laptop", true), "");
  ASSERT_TRUE(laptop.ok());
  EXPECT_FALSE(laptop->on_npu);
  EXPECT_EQ(laptop->explanation.find("NPU"), std::string::npos) << laptop->explanation;
  auto desktop = Plan(Fixture("radeon-7900xtx-desktop", true), "llama3.1:8b");
  ASSERT_TRUE(desktop.ok());
  EXPECT_FALSE(desktop->on_npu);
  EXPECT_EQ(desktop->explanation.find("NPU"), std::string::npos) << desktop->explanation;
}

TEST(NpuPlacementTest, AskingForTheNpuTurnsEachReasonIntoAnError) {
  struct Case {
    std::string name;
    std::string fixture;
    bool installed;
    std::string checkpoint;
    std::string held_by;
    std::string refused;
    ErrorCode code;
    std::string message;
  };
  const std::string laptop = "ryzen-ai-300-laptop";
  const std::vector<Case> cases = {
      {"no NPU", "radeon-7900xtx-desktop", true, "llama3.1:8b", "", "", ErrorCode::kInvalidArgument,
       "'llama' cannot run on the NPU: this machine has no NPU"},
      {"no NPU build", laptop, true, "", "", "", ErrorCode::kInvalidArgument,
       "'llama' cannot run on the NPU: it has no FAKE-NPU-ENGINE build (set its `fake` option)"},
      {"not installed", laptop, false, "llama3.1:8b", "", "", ErrorCode::kUnavailable,
       "install FAKE-NPU-ENGINE to use it"},
      // Held: a memory error, so the pool evicts the holder when it is idle.
      {"held", laptop, true, "llama3.1:8b", "qwen", "", ErrorCode::kInsufficientMemory,
       "it runs 'qwen' (FAKE-NPU-ENGINE holds one model at a time)"},
      {"refused option", laptop, true, "llama3.1:8b", "", "batch, which FAKE-NPU-ENGINE ignores",
       ErrorCode::kInvalidArgument, "its options set batch, which FAKE-NPU-ENGINE ignores"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto plan = Plan(Fixture(c.fixture, c.installed), c.checkpoint,
                     Device(c.name == "no NPU build" ? "NPU" : "npu"), c.held_by, 4096, c.refused);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), c.code);
    EXPECT_NE(plan.status().message().find(c.message), std::string::npos)
        << plan.status().message();
  }
}

TEST(NpuPlacementTest, MemoryComesFromSystemRam) {
  // 9 GiB for zest: the 8B model's 8.5 GB of weights, its KV cache and the
  // runtime do not fit at the trained 8192 tokens; an automatic context
  // shrinks (by halves) until they do.
  const Machine small = Fixture("ryzen-ai-300-laptop", true, 9 * kGiB);
  auto fitted = Plan(small, "llama3.1:8b", Device("npu"), "", /*default_ctx=*/0);
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_LT(fitted->ctx_per_slot, 8192u);
  EXPECT_GE(fitted->ctx_per_slot, kMinContext);
  EXPECT_LE(fitted->TotalBytes(), 9 * kGiB);
  // An explicit context is never shrunk: asked for, it is an error (507).
  config::ModelSettings wide = Device("npu");
  wide.ctx_size = 8192;
  auto refused = Plan(small, "llama3.1:8b", wide);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(refused.status().message().find("of system memory for a context of 8192 tokens, and "
                                            "9.0 GiB is free"),
            std::string::npos)
      << refused.status().message();
  // What the NPU holds comes out of the CPU's free memory for the next plan.
  auto on_npu = Plan(Fixture("ryzen-ai-300-laptop", true), "llama3.1:8b");
  ASSERT_TRUE(on_npu.ok());
  const Machine laptop = Fixture("ryzen-ai-300-laptop", true);
  auto after = FreeAfter(laptop.devices, {&*on_npu});
  EXPECT_EQ(after[0].free_bytes, laptop.devices[0].free_bytes - on_npu->TotalBytes());
  EXPECT_EQ(after[1].free_bytes, laptop.devices[1].free_bytes);  // the GPU's own memory
}

}  // namespace
}  // namespace zest::placement
