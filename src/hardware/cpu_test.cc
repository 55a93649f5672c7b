#include "hardware/cpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "hardware/memory.h"

namespace zest::hardware {
namespace {

std::string RealFile(const char* path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(CpuInfoTest, ParsesX86Fields) {
  CpuInfo cpu = ParseCpuInfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 7\nphysical id\t: 0\n"
      "cpu cores\t: 1\nflags\t\t: fpu avx avx2 fma avx512f avx512_vnni amx_tile\n\n"
      "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 7\nphysical id\t: 0\n"
      "cpu cores\t: 1\nflags\t\t: fpu avx avx2 fma avx512f avx512_vnni amx_tile\n");
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.model_name, "AMD Ryzen 7");
  EXPECT_EQ(cpu.threads, 2);
  EXPECT_EQ(cpu.physical_cores, 1);
  EXPECT_EQ(cpu.sockets, 1);
  EXPECT_EQ(cpu.features,
            (std::vector<std::string>{"avx", "avx2", "fma", "avx512f", "avx512_vnni", "amx_tile"}));
}

TEST(CpuInfoTest, Arm64FeaturesNameNeon) {
  CpuInfo cpu = ParseCpuInfo("processor\t: 0\nFeatures\t: fp asimd sve\n");
  EXPECT_EQ(cpu.features, (std::vector<std::string>{"neon", "sve"}));
}

// This machine: discovery agrees with the real /proc/cpuinfo.
TEST(RealMachineTest, CpuMatchesProcCpuinfo) {
  std::string cpuinfo = RealFile("/proc/cpuinfo");
  CpuInfo cpu = DiscoverCpu(SystemRoots{}, /*use_cpuid=*/true);
  size_t processors = 0;
  for (size_t at = cpuinfo.find("processor"); at != std::string::npos;
       at = cpuinfo.find("\nprocessor", at + 1)) {
    ++processors;
  }
  EXPECT_EQ(cpu.threads, static_cast<int>(processors));
  EXPECT_FALSE(cpu.model_name.empty());
  EXPECT_NE(cpuinfo.find(cpu.model_name), std::string::npos);
  EXPECT_GE(cpu.physical_cores, 1);
  EXPECT_LE(cpu.physical_cores, cpu.threads);
}

// cpuid cannot be faked, so fixtures use the flags line; here the two
// sources must agree on this real machine.
TEST(RealMachineTest, CpuidAgreesWithCpuinfoFlags) {
  if (!CpuidAvailable()) GTEST_SKIP() << "not x86";
  std::vector<std::string> from_flags = ParseCpuInfo(RealFile("/proc/cpuinfo")).features;
  EXPECT_EQ(CpuidFeatures(), from_flags);
}

TEST(RealMachineTest, MemTotalMatchesProcMeminfo) {
  std::string meminfo = RealFile("/proc/meminfo");
  std::istringstream in(meminfo.substr(meminfo.find("MemTotal:") + 9));
  uint64_t kb = 0;
  in >> kb;
  EXPECT_EQ(DiscoverMemory(SystemRoots{}).total_bytes, kb * 1024);
}

}  // namespace
}  // namespace zest::hardware
