#include "engines/engine_probe.h"

#include <gtest/gtest.h>

namespace zest::engines {
namespace {

TEST(ParseVersion, ReadsTheVersionLine) {
  EXPECT_EQ(ParseVersion("version: 0.7.0 (build 11669, commit Debian)\n"
                         "built with GNU 16.2.0 for Linux x86_64\n"),
            "0.7.0 (build 11669, commit Debian)");
}

TEST(ParseVersion, SkipsGgmlLogLinesBeforeIt) {
  EXPECT_EQ(ParseVersion("ggml_vulkan: Found 1 Vulkan devices:\n"
                         "ggml_vulkan: 0 = llvmpipe (LLVM 19.1.7, 256 bits) (llvmpipe) | uma: 0\n"
                         "load_backend: loaded Vulkan backend from "
                         "/usr/lib/x86_64-linux-gnu/ggml/backends0/libggml-vulkan.so\n"
                         "version: 0.7.0 (build 11669, commit Debian)\r\n"
                         "built with GNU 16.2.0 for Linux x86_64\n"),
            "0.7.0 (build 11669, commit Debian)");
}

TEST(ParseVersion, EmptyWithoutAVersionLine) {
  EXPECT_EQ(ParseVersion("error: unknown argument: --version\n"), "");
  EXPECT_EQ(ParseVersion(""), "");
}

TEST(ParseDeviceList, ReadsVulkanDevices) {
  auto devices = ParseDeviceList(
      "ggml_vulkan: Found 1 Vulkan devices:\n"
      "Available devices:\n"
      "  Vulkan0: llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)\n"
      "  Vulkan1: AMD Radeon 890M (RADV GFX1150) (32768 MiB, 30000 MiB free)\n");
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].name, "Vulkan0");
  EXPECT_EQ(devices[0].description, "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)");
  EXPECT_EQ(devices[1].name, "Vulkan1");
  // What placement reads: the memory the engine states, llvmpipe as software.
  EXPECT_EQ(devices[0].total_bytes, 24105ull << 20);
  EXPECT_TRUE(devices[0].software);
  EXPECT_EQ(devices[1].total_bytes, 32768ull << 20);
  EXPECT_EQ(devices[1].free_bytes, 30000ull << 20);
  EXPECT_FALSE(devices[1].software);
}

TEST(ParseDeviceList, LeavesOutTheCpuBackendsAndMemoryItDoesNotState) {
  auto devices = ParseDeviceList(
      "Available devices:\n"
      "  CPU: AMD Ryzen 9 (65536 MiB, 60000 MiB free)\n"
      "  BLAS: OpenBLAS\n"
      "  Vulkan0: AMD Radeon RX 7900 XTX (RADV NAVI31)\n");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, "Vulkan0");
  EXPECT_FALSE(devices[0].total_bytes.has_value());
  EXPECT_FALSE(devices[0].free_bytes.has_value());
}

TEST(ParseDeviceList, NoneIsEmpty) {
  EXPECT_TRUE(ParseDeviceList("Available devices:\n  (none)\n").empty());
}

TEST(ParseDeviceList, IgnoresLinesOutsideTheList) {
  auto devices = ParseDeviceList(
      "  Bogus0: before the header\n"
      "Available devices:\n"
      "  CUDA0: NVIDIA GeForce RTX 4090 (24210 MiB, 23000 MiB free)\n"
      "main: exiting\n"
      "  Late0: after the list\n");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, "CUDA0");
}

TEST(ParseDeviceList, NoHeaderNoDevices) { EXPECT_TRUE(ParseDeviceList("  Vulkan0: x\n").empty()); }

}  // namespace
}  // namespace zest::engines
