// The whole inventory and the recipe verdicts for each FAKE fixture under
// tests/fixtures/hardware (see its README).
#include <gtest/gtest.h>

#include "engines/recipe_verdicts.h"
#include "hardware/inventory.h"
#include "hardware/test_fixtures.h"

namespace zest::hardware {
namespace {

using engines::EngineFacts;
using engines::RecipeVerdict;
using engines::RecipeVerdicts;
using engines::VerdictName;

constexpr uint64_t kMiB = 1ULL << 20;
constexpr uint64_t kGiB = 1ULL << 30;
using Features = std::vector<std::string>;

const Features kZen5 = {"avx",      "avx2",        "fma",         "f16c",    "avx512f",
                        "avx512bw", "avx512_vnni", "avx512_bf16", "avx_vnni"};

EngineFacts RootfsEngine(std::vector<engines::EngineDevice> devices = {}) {
  EngineFacts e;
  e.llama_server_found = true;
  e.llama_server_source = "rootfs";
  e.probed = true;
  e.devices = std::move(devices);
  return e;
}

// recipe-backend → verdict name, for compact assertions.
std::map<std::string, std::string> VerdictMap(const std::vector<RecipeVerdict>& verdicts) {
  std::map<std::string, std::string> out;
  for (const auto& v : verdicts) out[v.recipe + "-" + v.backend] = VerdictName(v.verdict);
  return out;
}

std::string Reason(const std::vector<RecipeVerdict>& verdicts, const std::string& key) {
  for (const auto& v : verdicts) {
    if (v.recipe + "-" + v.backend == key) return v.reason;
  }
  return "";
}

void ExpectPci(const PciDevice& d, const char* address, uint32_t cls, uint16_t vendor,
               uint16_t device, const char* driver) {
  EXPECT_EQ(d.address, address);
  EXPECT_EQ(d.class_code, cls);
  EXPECT_EQ(d.vendor_id, vendor);
  EXPECT_EQ(d.device_id, device);
  EXPECT_EQ(d.driver, driver);
}

void ExpectCpu(const CpuInfo& cpu, const char* vendor, const char* model, int cores, int threads,
               const Features& features) {
  EXPECT_EQ(cpu.vendor, vendor);
  EXPECT_EQ(cpu.model_name, model);
  EXPECT_EQ(cpu.architecture, "x86_64");
  EXPECT_EQ(cpu.sockets, 1);
  EXPECT_EQ(cpu.physical_cores, cores);
  EXPECT_EQ(cpu.threads, threads);
  EXPECT_EQ(cpu.features, features);
  EXPECT_EQ(cpu.features_source, "cpuinfo");
}

TEST(FixtureTest, RyzenAi300Laptop) {
  Inventory inv = Discover(FixtureRoots("ryzen-ai-300-laptop"));
  ExpectCpu(inv.cpu, "AuthenticAMD", "AMD Ryzen AI 9 HX 370 w/ Radeon 890M", 12, 24, kZen5);
  EXPECT_EQ(inv.memory.total_bytes, 32820429ULL * 1024);
  EXPECT_EQ(inv.memory.available_bytes, 20 * kGiB);
  EXPECT_EQ(inv.memory.swap_total_bytes, 8 * kGiB);
  EXPECT_EQ(inv.kernel_release, "6.11.0-19-generic");
  ASSERT_EQ(inv.gpus.size(), 1u);
  const GpuInfo& gpu = inv.gpus[0];
  EXPECT_EQ(gpu.vendor, GpuVendor::kAmd);
  EXPECT_EQ(gpu.name, "AMD Radeon 880M/890M (Strix Point)");
  ExpectPci(gpu.pci, "0000:c5:00.0", 0x030000, 0x1002, 0x150e, "amdgpu");
  EXPECT_EQ(gpu.pci.revision, 0xc1);
  EXPECT_EQ(gpu.pci.subsystem_vendor_id, 0x1002);
  EXPECT_EQ(gpu.pci.subsystem_device_id, 0x0124);
  EXPECT_EQ(gpu.card, "card1");
  EXPECT_TRUE(gpu.integrated);
  EXPECT_TRUE(gpu.unified_memory);
  EXPECT_EQ(gpu.vram_total_bytes, 512 * kMiB);
  EXPECT_EQ(gpu.vram_used_bytes, 26843546u);
  EXPECT_EQ(gpu.gtt_total_bytes, 15 * kGiB + 512 * kMiB);
  EXPECT_EQ(gpu.gtt_used_bytes, 64 * kMiB);
  EXPECT_EQ(gpu.busy_percent, 3);
  EXPECT_EQ(gpu.gfx_target, "gfx1150");
  EXPECT_EQ(gpu.source, "sysfs+kfd");
  ASSERT_EQ(inv.npus.size(), 1u);
  const NpuInfo& npu = inv.npus[0];
  EXPECT_EQ(npu.generation, NpuGeneration::kXdna2);
  EXPECT_EQ(npu.name, "AMD XDNA2 NPU (Strix/Krackan)");
  ExpectPci(npu.pci, "0000:c6:00.1", 0x118000, 0x1022, 0x17f0, "amdxdna");
  EXPECT_EQ(npu.accel, "accel0");
  EXPECT_EQ(npu.firmware_version, "1.1.2.64");
  EXPECT_EQ(npu.driver_version, "2.19.0");
  EXPECT_TRUE(npu.usable) << npu.reason;
  EXPECT_TRUE(inv.vulkan.empty());
  EXPECT_TRUE(inv.notes.empty());

  auto verdicts = RecipeVerdicts(inv, RootfsEngine());
  EXPECT_EQ(VerdictMap(verdicts),
            (std::map<std::string, std::string>{{"llamacpp-cpu", "usable"},
                                                {"llamacpp-vulkan", "installable"},
                                                {"llamacpp-rocm", "unsupported"},
                                                {"llamacpp-cuda", "unsupported"},
                                                {"flm-npu", "installable"},
                                                {"ryzenai-npu", "unsupported"},
                                                {"whispercpp-cpu", "installable"},
                                                {"sdcpp-cpu", "installable"}}));
  EXPECT_NE(Reason(verdicts, "llamacpp-vulkan").find("ZEST_ENGINE_VULKAN=1 make engines"),
            std::string::npos);
  EXPECT_EQ(Reason(verdicts, "llamacpp-cuda"), "no NVIDIA GPU");
}

TEST(FixtureTest, RyzenAi300LaptopWithFastFlowLmInstalled) {
  EngineFacts engines = RootfsEngine();
  engines.flm_path = "/usr/bin/flm";
  auto verdicts = RecipeVerdicts(Discover(FixtureRoots("ryzen-ai-300-laptop")), engines);
  EXPECT_EQ(VerdictMap(verdicts)["flm-npu"], "usable");
  EXPECT_EQ(Reason(verdicts, "flm-npu"),
            "FastFlowLM (/usr/bin/flm) on the XDNA2 NPU (firmware 1.1.2.64)");
  // Ryzen AI Server is another engine, which zest does not run.
  EXPECT_EQ(VerdictMap(verdicts)["ryzenai-npu"], "unsupported");
  EXPECT_EQ(Reason(verdicts, "ryzenai-npu"),
            "zest does not run Ryzen AI Server yet; the flm recipe (FastFlowLM) uses this NPU");
}

TEST(FixtureTest, RyzenAi300LaptopWithOldNpuFirmware) {
  FixtureCopy fixture("ryzen-ai-300-laptop");
  fixture.Write("sys/devices/pci0000:00/0000:c6:00.1/fw_version", "1.0.0.166\n");
  EngineFacts engines = RootfsEngine();
  engines.flm_path = "/usr/bin/flm";  // installed, but the firmware is too old for it
  auto verdicts = RecipeVerdicts(Discover(fixture.roots()), engines);
  EXPECT_EQ(VerdictMap(verdicts)["flm-npu"], "unsupported");
  EXPECT_EQ(Reason(verdicts, "flm-npu"),
            "NPU firmware 1.0.0.166 is older than the 1.1.0.0 FastFlowLM needs");
}

TEST(FixtureTest, RyzenAi300LaptopWithoutDeviceNode) {
  FixtureCopy fixture("ryzen-ai-300-laptop");
  std::filesystem::remove(fixture.roots().Dev("accel/accel0"));
  Inventory inv = Discover(fixture.roots());
  ASSERT_EQ(inv.npus.size(), 1u);
  EXPECT_FALSE(inv.npus[0].usable);
  EXPECT_EQ(inv.npus[0].reason, "/dev/accel/accel0 is missing");
  EXPECT_EQ(VerdictMap(RecipeVerdicts(inv, RootfsEngine()))["flm-npu"], "unsupported");
}

TEST(FixtureTest, StrixHalo128G) {
  Inventory inv = Discover(FixtureRoots("strix-halo-128g"));
  ExpectCpu(inv.cpu, "AuthenticAMD", "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", 16, 32, kZen5);
  EXPECT_EQ(inv.memory.total_bytes, 131281715ULL * 1024);
  ASSERT_EQ(inv.gpus.size(), 1u);
  const GpuInfo& gpu = inv.gpus[0];
  EXPECT_EQ(gpu.name, "AMD Radeon 8050S/8060S (Strix Halo)");
  ExpectPci(gpu.pci, "0000:c5:00.0", 0x030000, 0x1002, 0x1586, "amdgpu");
  EXPECT_EQ(gpu.card, "card0");
  EXPECT_TRUE(gpu.integrated);
  EXPECT_TRUE(gpu.unified_memory);
  EXPECT_EQ(gpu.vram_total_bytes, 512 * kMiB);
  EXPECT_EQ(gpu.gtt_total_bytes, 110 * kGiB);
  EXPECT_EQ(gpu.busy_percent, 0);
  EXPECT_EQ(gpu.gfx_target, "gfx1151");
  ASSERT_EQ(inv.npus.size(), 1u);
  EXPECT_EQ(inv.npus[0].generation, NpuGeneration::kXdna2);
  EXPECT_EQ(inv.npus[0].firmware_version, "");
  EXPECT_EQ(inv.npus[0].driver_version, "kernel 6.15.4-200.fc42.x86_64");
  EXPECT_TRUE(inv.npus[0].usable);

  auto verdicts =
      RecipeVerdicts(inv, RootfsEngine({{"Vulkan0", "Radeon 8060S Graphics (RADV GFX1151)"}}));
  EXPECT_EQ(VerdictMap(verdicts),
            (std::map<std::string, std::string>{{"llamacpp-cpu", "usable"},
                                                {"llamacpp-vulkan", "usable"},
                                                {"llamacpp-rocm", "unsupported"},
                                                {"llamacpp-cuda", "unsupported"},
                                                {"flm-npu", "unknown"},
                                                {"ryzenai-npu", "unsupported"},
                                                {"whispercpp-cpu", "installable"},
                                                {"sdcpp-cpu", "installable"}}));
  EXPECT_EQ(Reason(verdicts, "llamacpp-vulkan"),
            "llama-server sees Vulkan0: Radeon 8060S Graphics (RADV GFX1151)");
}

TEST(FixtureTest, Radeon7900XtxDesktop) {
  Inventory inv = Discover(FixtureRoots("radeon-7900xtx-desktop"));
  ExpectCpu(inv.cpu, "AuthenticAMD", "AMD Ryzen 9 7950X 16-Core Processor", 16, 32,
            {"avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16"});
  ASSERT_EQ(inv.gpus.size(), 2u);
  const GpuInfo& dgpu = inv.gpus[0];
  EXPECT_EQ(dgpu.name, "AMD Radeon RX 7900 XTX");
  ExpectPci(dgpu.pci, "0000:03:00.0", 0x030000, 0x1002, 0x744c, "amdgpu");
  EXPECT_EQ(dgpu.card, "card1");
  EXPECT_FALSE(dgpu.integrated);
  EXPECT_FALSE(dgpu.unified_memory);
  EXPECT_EQ(dgpu.vram_total_bytes, 24560 * kMiB);
  EXPECT_EQ(dgpu.gfx_target, "gfx1100");
  EXPECT_EQ(dgpu.busy_percent, 12);
  const GpuInfo& igpu = inv.gpus[1];
  EXPECT_EQ(igpu.name, "AMD Radeon Graphics (Raphael)");
  EXPECT_EQ(igpu.card, "card2");
  EXPECT_TRUE(igpu.integrated);
  EXPECT_EQ(igpu.gfx_target, "gfx1036");
  EXPECT_TRUE(inv.npus.empty());

  auto verdicts = RecipeVerdicts(inv, RootfsEngine());
  EXPECT_EQ(VerdictMap(verdicts)["llamacpp-vulkan"], "installable");
  EXPECT_EQ(VerdictMap(verdicts)["flm-npu"], "unsupported");
  EXPECT_EQ(Reason(verdicts, "flm-npu"), "no NPU");
  EXPECT_NE(Reason(verdicts, "llamacpp-rocm").find("no ROCm build"), std::string::npos);
}

TEST(FixtureTest, Rtx4090DesktopWithoutNvml) {
  Inventory inv = Discover(FixtureRoots("rtx-4090-desktop"));
  ExpectCpu(inv.cpu, "GenuineIntel", "Intel(R) Core(TM) i9-14900K", 24, 32,
            {"avx", "avx2", "fma", "f16c", "avx_vnni"});
  ASSERT_EQ(inv.gpus.size(), 1u);  // the card's audio function is not a GPU
  const GpuInfo& gpu = inv.gpus[0];
  EXPECT_EQ(gpu.vendor, GpuVendor::kNvidia);
  EXPECT_EQ(gpu.name, "NVIDIA GeForce RTX 4090");
  ExpectPci(gpu.pci, "0000:01:00.0", 0x030000, 0x10de, 0x2684, "nvidia");
  EXPECT_FALSE(gpu.integrated);
  EXPECT_EQ(gpu.vram_total_bytes, 0u);  // unknown without NVML
  EXPECT_EQ(gpu.compute_capability, "8.9");
  EXPECT_EQ(gpu.driver_version, "550.54.14");
  EXPECT_EQ(gpu.source, "procfs");
  EXPECT_FALSE(gpu.busy_percent.has_value());
  ASSERT_EQ(inv.notes.size(), 1u);
  EXPECT_NE(inv.notes[0].find("NVML unavailable"), std::string::npos);

  auto verdicts = RecipeVerdicts(inv, RootfsEngine());
  EXPECT_EQ(VerdictMap(verdicts)["llamacpp-cuda"], "unsupported");
  EXPECT_EQ(VerdictMap(verdicts)["llamacpp-vulkan"], "installable");
  EXPECT_EQ(Reason(verdicts, "llamacpp-rocm"), "no AMD GPU");
}

}  // namespace
}  // namespace zest::hardware
