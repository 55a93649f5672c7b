// Plans of the models that run whole on the CPU: speech and image models get
// one slot on the CPU, their weights from the header and what their engine
// says it needs beside them, or a clear refusal.
#include "placement/cpu_model_plan.h"

#include <gtest/gtest.h>

namespace zest::placement {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

std::vector<PlacementDevice> CpuAndGpu(uint64_t cpu_free) {
  PlacementDevice cpu;
  cpu.name = kCpuDevice;
  cpu.total_bytes = cpu.free_bytes = cpu_free;
  PlacementDevice gpu;
  gpu.name = "vulkan0";
  gpu.total_bytes = gpu.free_bytes = 64 * kGiB;
  return {gpu, cpu};
}

models::ModelInfo Whisper() {
  models::ModelInfo m;
  m.speech = true;
  m.architecture = "whisper";
  m.file_size = 148 * kMiB;
  m.tensor_bytes = 140 * kMiB;
  m.vocab_size = 51865;
  m.context_length = 448;
  return m;
}

models::ModelInfo StableDiffusion() {
  models::ModelInfo m;
  m.image = true;
  m.architecture = "stable-diffusion";
  m.file_size = 2 * kGiB;
  m.tensor_bytes = 2 * kGiB - kMiB;
  return m;
}

// What a FAKE engine says it needs beside the weights.
CpuEngineNeeds Needs(const std::string& what, uint64_t buffers, uint64_t ctx = 0) {
  return {what, "FAKE engine", buffers, "working buffers", 48 * kMiB, ctx};
}

TEST(CpuModelPlanTest, ASpeechModelGetsOneSlotOnTheCpu) {
  Result<EnginePlan> plan =
      PlanWholeOnCpu(Whisper(), CpuAndGpu(8 * kGiB), Needs("speech model", 90 * kMiB, 448));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->on_npu);
  EXPECT_TRUE(plan->gpu_devices.empty());
  EXPECT_EQ(plan->parallel, 1);
  EXPECT_EQ(plan->ctx_per_slot, 448u);
  ASSERT_EQ(plan->memory.size(), 1u);
  EXPECT_EQ(plan->memory[0].device, kCpuDevice);
  const DeviceMemory& memory = plan->memory[0].memory;
  EXPECT_EQ(memory.weights, 140 * kMiB);  // the tensors, not the whole file
  EXPECT_EQ(memory.compute, 90 * kMiB);
  EXPECT_EQ(memory.overhead, 48 * kMiB);
  EXPECT_EQ(plan->explanation,
            "Speech model (whisper) on the CPU (FAKE engine): weights 140 MiB, working buffers "
            "90 MiB, engine 48 MiB; one request at a time.");
}

TEST(CpuModelPlanTest, AnImageModelGetsOneSlotOnTheCpuWithItsBuffers) {
  Result<EnginePlan> plan =
      PlanWholeOnCpu(StableDiffusion(), CpuAndGpu(8 * kGiB), Needs("image model", kGiB));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->parallel, 1);
  ASSERT_EQ(plan->memory.size(), 1u);
  const DeviceMemory& memory = plan->memory[0].memory;
  EXPECT_EQ(memory.weights, 2 * kGiB - kMiB);
  EXPECT_EQ(memory.Total(), 2 * kGiB - kMiB + kGiB + 48 * kMiB);
  EXPECT_NE(plan->explanation.find("Image model (stable-diffusion)"), std::string::npos);
}

TEST(CpuModelPlanTest, RefusesWhatTheCpuCannotHoldAndSaysHowMuch) {
  Result<EnginePlan> plan =
      PlanWholeOnCpu(StableDiffusion(), CpuAndGpu(2 * kGiB), Needs("image model", kGiB));
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(plan.status().message().find("image model needs 3.0 GiB on the CPU; 2.0 GiB free"),
            std::string::npos)
      << plan.status().message();
  EXPECT_EQ(PlanWholeOnCpu(Whisper(), {}, Needs("speech model", 0)).status().code(),
            ErrorCode::kInsufficientMemory);
}

}  // namespace
}  // namespace zest::placement
