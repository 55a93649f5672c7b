// Plans of the models that run whole on the CPU: speech and image models get
// one slot on the CPU and their memory from the header, or a clear refusal.
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

TEST(CpuModelPlanTest, ASpeechModelGetsOneSlotOnTheCpu) {
  Result<EnginePlan> plan = PlanSpeech(Whisper(), CpuAndGpu(8 * kGiB));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->recipe, kWhisperRecipe);
  EXPECT_EQ(plan->parallel, 1);
  EXPECT_EQ(plan->ctx_per_slot, 448u);
  ASSERT_EQ(plan->memory.size(), 1u);
  EXPECT_EQ(plan->memory[0].device, kCpuDevice);
  const DeviceMemory& memory = plan->memory[0].memory;
  EXPECT_EQ(memory.weights, 140 * kMiB);
  EXPECT_EQ(memory.compute, 51865u * 448 * 4);  // the decoder's F32 logits
  EXPECT_EQ(memory.overhead, kSpeechEngineBytes);
}

TEST(CpuModelPlanTest, AnImageModelGetsOneSlotOnTheCpuWithItsBuffers) {
  Result<EnginePlan> plan = PlanImages(StableDiffusion(), CpuAndGpu(8 * kGiB));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->recipe, kStableDiffusionRecipe);
  EXPECT_EQ(plan->parallel, 1);
  ASSERT_EQ(plan->memory.size(), 1u);
  const DeviceMemory& memory = plan->memory[0].memory;
  EXPECT_EQ(memory.weights, 2 * kGiB - kMiB);
  EXPECT_EQ(memory.Total(), 2 * kGiB - kMiB + kImageComputeBytes + kImageEngineBytes);
  EXPECT_NE(plan->explanation.find("stable-diffusion"), std::string::npos);
}

TEST(CpuModelPlanTest, RefusesWhatTheCpuCannotHoldAndSaysHowMuch) {
  Result<EnginePlan> plan = PlanImages(StableDiffusion(), CpuAndGpu(2 * kGiB));
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(plan.status().message().find("image model needs 3.1 GiB on the CPU"), std::string::npos)
      << plan.status().message();
  EXPECT_EQ(PlanSpeech(Whisper(), {}).status().code(), ErrorCode::kInsufficientMemory);
}

}  // namespace
}  // namespace zest::placement
