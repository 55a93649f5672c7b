#include "engines/recipe_verdicts.h"

#include <gtest/gtest.h>

namespace zest::engines {

using hardware::Inventory;
namespace {

TEST(VersionTest, ComparesNumerically) {
  EXPECT_EQ(CompareVersions("1.10", "1.9"), 1);
  EXPECT_EQ(CompareVersions("1.1", "1.1.0.0"), 0);
  EXPECT_EQ(CompareVersions("1.0.0.166", "1.1.0.0"), -1);
}

TEST(VerdictTest, NoEngineMeansInstallable) {
  Inventory inv;
  inv.cpu.threads = 2;
  auto verdicts = RecipeVerdicts(inv, EngineFacts{});
  EXPECT_EQ(verdicts[0].recipe, "llamacpp");
  EXPECT_EQ(verdicts[0].verdict, Verdict::kInstallable);
  EXPECT_EQ(verdicts[1].verdict, Verdict::kUnsupported);  // vulkan: no GPU at all
  EXPECT_EQ(verdicts[1].reason, "no GPU and no Vulkan device");
}

TEST(VerdictTest, EngineVulkanDeviceWithoutHostGpu) {
  // llvmpipe inside the engine's rootfs: usable even though the host has no GPU.
  Inventory inv;
  EngineFacts engines;
  engines.llama_server_found = true;
  engines.probed = true;
  engines.devices.push_back(
      {"Vulkan0", "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)"});
  EXPECT_EQ(RecipeVerdicts(inv, engines)[1].verdict, Verdict::kUsable);
}

TEST(VerdictTest, UnprobedEngineWithGpuIsUnknown) {
  Inventory inv;
  inv.gpus.emplace_back();
  EngineFacts engines;
  engines.llama_server_found = true;
  EXPECT_EQ(RecipeVerdicts(inv, engines)[1].verdict, Verdict::kUnknown);
}

}  // namespace
}  // namespace zest::engines
