// Parsers behind GPU discovery: gfx target names, NVIDIA's driver version.
#include <gtest/gtest.h>

#include "hardware/amd_gpu.h"
#include "hardware/nvidia.h"

namespace zest::hardware {
namespace {

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

}  // namespace
}  // namespace zest::hardware
