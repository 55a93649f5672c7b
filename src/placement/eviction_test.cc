#include "placement/eviction.h"

#include <gtest/gtest.h>

namespace zest::placement {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

PlacementDevice Device(std::string name, uint64_t free, bool unified = false) {
  PlacementDevice d;
  d.name = std::move(name);
  d.gpu = d.name != kCpuDevice;
  d.unified = unified;
  d.total_bytes = d.free_bytes = free;
  return d;
}

EnginePlan PlanUsing(const std::vector<std::pair<std::string, uint64_t>>& uses) {
  EnginePlan plan;
  for (const auto& [device, bytes] : uses) {
    DeviceUse u;
    u.device = device;
    u.memory.weights = bytes;
    plan.memory.push_back(u);
  }
  return plan;
}

TEST(EvictionTest, FreeAfterSubtractsPlansAndUnifiedMemoryFromRam) {
  std::vector<PlacementDevice> devices = {
      Device("CPU", 64 * kGiB), Device("Vulkan0", 48 * kGiB, true), Device("CUDA0", 24 * kGiB)};
  EnginePlan a = PlanUsing({{"CPU", 2 * kGiB}, {"Vulkan0", 10 * kGiB}});
  EnginePlan b = PlanUsing({{"CPU", 1 * kGiB}, {"CUDA0", 30 * kGiB}});
  auto free = FreeAfter(devices, {&a, &b});
  EXPECT_EQ(free[0].free_bytes, 64 * kGiB - 2 * kGiB - 10 * kGiB - 1 * kGiB);
  EXPECT_EQ(free[1].free_bytes, 38 * kGiB);
  EXPECT_EQ(free[2].free_bytes, 0u);  // over-committed clamps at zero
  EXPECT_EQ(free[0].total_bytes, 64 * kGiB);
}

TEST(EvictionTest, RamOvercommitCountsRamAndUnifiedMemoryPastTheFreeRam) {
  std::vector<PlacementDevice> devices = {
      Device("CPU", 16 * kGiB), Device("Vulkan0", 48 * kGiB, true), Device("CUDA0", 24 * kGiB)};
  EnginePlan a = PlanUsing({{"CPU", 6 * kGiB}, {"Vulkan0", 4 * kGiB}});
  EnginePlan b = PlanUsing({{"CPU", 5 * kGiB}, {"CUDA0", 20 * kGiB}});
  EXPECT_EQ(RamOvercommit(devices, {&a, &b}), 0u) << "15 GiB of 16";
  EnginePlan c = PlanUsing({{"CPU", 3 * kGiB}});
  EXPECT_EQ(RamOvercommit(devices, {&a, &b, &c}), 2 * kGiB);
  EXPECT_EQ(RamOvercommit({}, {&a}), 0u);
}

struct OrderCase {
  std::vector<EvictionCandidate> candidates;
  std::vector<std::string> expected;
};

// ggml-rpc-server serves one engine at a time: a worker in use has no room
// for another, however much memory it has.
TEST(EvictionTest, AWorkerInUseHasNoRoomLeft) {
  PlacementDevice worker = Device("rpc:10.0.0.2:50052", 32 * kGiB);
  worker.rpc_endpoint = "10.0.0.2:50052";
  std::vector<PlacementDevice> devices = {Device("CPU", 8 * kGiB), worker};
  EnginePlan a = PlanUsing({{"CPU", 2 * kGiB}, {"rpc:10.0.0.2:50052", 1 * kGiB}});
  auto free = FreeAfter(devices, {&a});
  EXPECT_EQ(free[1].free_bytes, 0u);
  EXPECT_EQ(FreeAfter(devices, {})[1].free_bytes, 32 * kGiB);
}

TEST(EvictionTest, LeastRecentlyUsedWeightedByReloadCost) {
  std::vector<OrderCase> cases = {
      // Same reload cost: plain LRU.
      {{{"a", 10, 2}, {"b", 100, 2}, {"c", 50, 2}}, {"b", "c", "a"}},
      // b was idle longer but takes 60 s to reload; a reloads in 2 s.
      {{{"a", 30, 2}, {"b", 120, 60}}, {"a", "b"}},
      // Idle long enough, even the expensive one goes first.
      {{{"a", 30, 2}, {"b", 3600, 60}}, {"b", "a"}},
      // Sub-second reloads count as one second.
      {{{"a", 5, 0.01}, {"b", 20, 1}}, {"b", "a"}},
      {{}, {}},
  };
  for (const auto& c : cases) EXPECT_EQ(EvictionOrder(c.candidates), c.expected);
}

}  // namespace
}  // namespace zest::placement
