#include "placement/cpu_threads.h"

#include <gtest/gtest.h>

namespace zest::placement {
namespace {

EnginePlan Gpu(int layers, int n_cpu_moe = 0) {
  EnginePlan plan;
  plan.gpu_devices = {"Vulkan0"};
  plan.n_gpu_layers = layers;
  plan.n_cpu_moe = n_cpu_moe;
  return plan;
}

TEST(ComputesOnCpu, CpuOnlyPlan) { EXPECT_TRUE(ComputesOnCpu(EnginePlan{}, 32)); }

TEST(ComputesOnCpu, FullOffloadDoesNot) { EXPECT_FALSE(ComputesOnCpu(Gpu(33), 32)); }

TEST(ComputesOnCpu, PartialOffloadDoes) { EXPECT_TRUE(ComputesOnCpu(Gpu(20), 32)); }

TEST(ComputesOnCpu, ExpertsOnTheCpuDo) { EXPECT_TRUE(ComputesOnCpu(Gpu(33, 4), 32)); }

TEST(ComputesOnCpu, ASoftwareGpuComputesOnCpuThreads) {
  EnginePlan llvmpipe = Gpu(33);
  llvmpipe.software_gpu = true;
  EXPECT_TRUE(ComputesOnCpu(llvmpipe, 32));
}

TEST(CpuThreadShare, AloneTakesEveryCore) { EXPECT_EQ(CpuThreadShare(16, {}), 16); }

TEST(CpuThreadShare, SharedEquallyWithTheOthers) {
  EXPECT_EQ(CpuThreadShare(16, {16}), 8);
  EXPECT_EQ(CpuThreadShare(16, {16, 8}), 5);
  EXPECT_EQ(CpuThreadShare(2, {2}), 1);
}

TEST(CpuThreadShare, NeverBelowOne) {
  EXPECT_EQ(CpuThreadShare(2, {1, 1, 1}), 1);
  EXPECT_EQ(CpuThreadShare(0, {}), 1);
}

}  // namespace
}  // namespace zest::placement
