#include "hardware/verdicts.h"

#include <gtest/gtest.h>

#include "hardware/amd_gpu.h"
#include "hardware/nvidia.h"

namespace zest::hardware {
namespace {

TEST(VersionTest, ComparesNumerically) {
  EXPECT_EQ(CompareVersions("1.10", "1.9"), 1);
  EXPECT_EQ(CompareVersions("1.1", "1.1.0.0"), 0);
  EXPECT_EQ(CompareVersions("1.0.0.166", "1.1.0.0"), -1);
}

TEST(GfxTargetTest, EncodesMinorAndSteppingInHex) {
  EXPECT_EQ(GfxTargetName(110501), "gfx1151");
  EXPECT_EQ(GfxTargetName(90010), "gfx90a");
  EXPECT_EQ(GfxTargetName(90400), "gfx940");
  EXPECT_EQ(GfxTargetName(0), "");
}

TEST(NvidiaTest, DriverVersionFromProc) {
  EXPECT_EQ(
      ParseNvidiaDriverVersion(
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n"),
      "570.86.15");
  EXPECT_EQ(ParseNvidiaDriverVersion("garbage"), "");
}

TEST(VerdictTest, NoEngineMeansInstallable) {
  Inventory inv;
  inv.cpu.threads = 2;
  auto verdicts = RecipeVerdicts(inv, EngineReport{});
  EXPECT_EQ(verdicts[0].recipe, "llamacpp");
  EXPECT_EQ(verdicts[0].verdict, Verdict::kInstallable);
  EXPECT_EQ(verdicts[1].verdict, Verdict::kUnsupported);  // vulkan: no GPU at all
  EXPECT_EQ(verdicts[1].reason, "no GPU and no Vulkan device");
}

TEST(VerdictTest, EngineVulkanDeviceWithoutHostGpu) {
  // llvmpipe inside the engine's rootfs: usable even though the host has no GPU.
  Inventory inv;
  EngineReport engines;
  engines.llama_server_found = true;
  engines.probed = true;
  engines.devices.push_back(
      {"Vulkan0", "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)"});
  EXPECT_EQ(RecipeVerdicts(inv, engines)[1].verdict, Verdict::kUsable);
}

TEST(VerdictTest, UnprobedEngineWithGpuIsUnknown) {
  Inventory inv;
  inv.gpus.emplace_back();
  EngineReport engines;
  engines.llama_server_found = true;
  EXPECT_EQ(RecipeVerdicts(inv, engines)[1].verdict, Verdict::kUnknown);
}

}  // namespace
}  // namespace zest::hardware
