// Replica placement on a GPU-less box with llvmpipe's Vulkan0, the machine
// the replica integration test runs on.
#include "placement/replica.h"

#include <gtest/gtest.h>

#include "placement/test_models.h"

namespace zest::placement {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::vector<PlacementDevice> CpuAndLlvmpipe(uint64_t memory_limit = 0) {
  hardware::Inventory inventory;
  inventory.memory.total_bytes = 64 * kGiB;
  inventory.memory.available_bytes = 60 * kGiB;
  // As the engine reports it: its memory stated, a software renderer.
  const hardware::EngineDevice llvmpipe{
      "Vulkan0", "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)", 24105ull << 20,
      24105ull << 20, /*software=*/true};
  return DevicesFromInventory(inventory, {llvmpipe}, memory_limit);
}

PlacementRequest Request() {
  PlacementRequest r;
  r.model_name = "m";
  r.default_parallel = 2;
  return r;
}

TEST(PlanReplica, AnInstanceOnTheCpuGetsItsReplicaOnTheGpu) {
  auto plan = PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(), Request(), {"CPU"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(PrimaryDevice(*plan), "Vulkan0");
  EXPECT_EQ(plan->n_gpu_layers, 33);
}

TEST(PlanReplica, AnInstanceOnTheGpuGetsItsReplicaOnTheCpu) {
  auto plan = PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(), Request(), {"Vulkan0"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(PrimaryDevice(*plan), "CPU");
  EXPECT_TRUE(plan->gpu_devices.empty());
}

TEST(PlanReplica, NoDeviceLeftIsInsufficientMemory) {
  auto plan =
      PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(), Request(), {"CPU", "Vulkan0"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(plan.status().message().find("no device left"), std::string::npos);
}

TEST(PlanReplica, AnUnusedDeviceWithoutRoomIsInsufficientMemory) {
  // 4 GiB of RAM for zest: an 8 GB model fits neither on the CPU nor on
  // llvmpipe (which allocates from the same RAM).
  auto plan =
      PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(4 * kGiB), Request(), {"Vulkan0"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInsufficientMemory);
  EXPECT_NE(plan.status().message().find("CPU:"), std::string::npos) << plan.status().message();
}

TEST(PlanReplica, ItsOwnDeviceOptionIsOverridden) {
  PlacementRequest r = Request();
  r.options.device = "Vulkan0";  // where the first instance was asked to go
  auto plan = PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(), r, {"Vulkan0"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(PrimaryDevice(*plan), "CPU");
}

TEST(PlanReplica, BadOptionsAreReportedNotSkipped) {
  PlacementRequest r = Request();
  r.options.kv_type = "q3_x";
  auto plan = PlanReplica(testing::SparseLlama3_8B(), CpuAndLlvmpipe(), r, {"CPU"});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::placement
