#include "hardware/amd_gpu.h"

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "hardware/pci.h"

namespace zest::hardware {
namespace fs = std::filesystem;

namespace {

constexpr uint64_t kGiB = 1ULL << 30;

// APU graphics (Rembrandt, Phoenix, Strix Point, Strix Halo...): they carve
// VRAM out of system RAM and map the rest through GTT.
bool IsApuDeviceId(uint16_t id) {
  switch (id) {
    case 0x1681:
    case 0x15bf:
    case 0x15c8:
    case 0x150e:
    case 0x1586:
    case 0x164e:
    case 0x1638:
      return true;
    default:
      return false;
  }
}

// Marketing names for devices zest's fixtures and users commonly have; the
// PCI ids come from the public PCI id database. Others come from libdrm's
// amdgpu.ids when installed, else a generic "AMD GPU 0xNNNN".
std::string BuiltinName(uint16_t id, uint8_t revision) {
  if (id == 0x744c) {
    if (revision == 0xc8) return "AMD Radeon RX 7900 XTX";
    if (revision == 0xcc) return "AMD Radeon RX 7900 XT";
    if (revision == 0xce) return "AMD Radeon RX 7900 GRE";
    return "AMD Radeon RX 7900 series";
  }
  static const std::map<uint16_t, std::string> kNames = {
      {0x150e, "AMD Radeon 880M/890M (Strix Point)"},
      {0x1586, "AMD Radeon 8050S/8060S (Strix Halo)"},
      {0x15bf, "AMD Radeon 760M/780M (Phoenix)"},
      {0x164e, "AMD Radeon Graphics (Raphael)"},
      {0x7448, "AMD Radeon PRO W7900"},
      {0x7480, "AMD Radeon RX 7600 series"},
  };
  auto it = kNames.find(id);
  return it == kNames.end() ? "" : it->second;
}

// libdrm's table: "150E,\tC1,\tAMD Radeon 890M Graphics".
std::string AmdgpuIdsName(uint16_t id, uint8_t revision) {
  auto text = ReadFile("/usr/share/libdrm/amdgpu.ids");
  if (!text) return "";
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    unsigned dev = 0, rev = 0;
    char name[128] = {};
    if (std::sscanf(line.c_str(), "%x, %x, %127[^\n]", &dev, &rev, name) == 3 && dev == id &&
        rev == revision) {
      return Trim(name);
    }
  }
  return "";
}

std::string AmdGpuName(const PciDevice& pci) {
  std::string name = BuiltinName(pci.device_id, pci.revision);
  if (name.empty()) name = AmdgpuIdsName(pci.device_id, pci.revision);
  if (name.empty()) name = fmt::format("AMD GPU 0x{:04x}", pci.device_id);
  return name;
}

// "cardN" whose device link resolves to this PCI function.
std::string DrmCard(const SystemRoots& roots, const fs::path& pci_dir) {
  std::error_code ec;
  fs::path target = fs::canonical(pci_dir, ec);
  if (ec) return "";
  for (const auto& entry : fs::directory_iterator(roots.Sys("class/drm"), ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("card", 0) != 0 || name.find('-') != std::string::npos) continue;
    std::error_code ec2;
    if (fs::canonical(entry.path() / "device", ec2) == target && !ec2) return name;
  }
  return "";
}

std::map<std::string, uint64_t> ParseProperties(const std::string& text) {
  std::map<std::string, uint64_t> props;
  std::istringstream in(text);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) props[key] = value;
  return props;
}

// KFD identifies GPUs by PCI domain and location_id = bus << 8 | devfn.
std::string KfdGfxTarget(const SystemRoots& roots, const std::string& address) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(address.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return "";
  uint64_t location = (bus << 8) | (dev << 3) | fn;
  std::error_code ec;
  for (const auto& node : fs::directory_iterator(roots.Sys("class/kfd/kfd/topology/nodes"), ec)) {
    auto props = ParseProperties(ReadFile(node.path() / "properties").value_or(""));
    if (props["gfx_target_version"] == 0) continue;  // a CPU node
    if (props["location_id"] == location && props["domain"] == domain) {
      return GfxTargetName(props["gfx_target_version"]);
    }
  }
  return "";
}

}  // namespace

std::string GfxTargetName(uint64_t v) {
  if (v == 0) return "";
  return fmt::format("gfx{}{:x}{:x}", v / 10000, (v / 100) % 100, v % 100);
}

void RefreshAmdGpu(const SystemRoots& roots, GpuInfo* gpu) {
  fs::path dir = PciDir(roots, gpu->pci.address);
  gpu->vram_used_bytes = ReadNumber(dir / "mem_info_vram_used").value_or(0);
  gpu->gtt_used_bytes = ReadNumber(dir / "mem_info_gtt_used").value_or(0);
  auto busy = ReadNumber(dir / "gpu_busy_percent");
  gpu->busy_percent = busy ? std::optional<int>(static_cast<int>(*busy)) : std::nullopt;
}

GpuInfo ReadAmdGpu(const SystemRoots& roots, const PciDevice& pci) {
  GpuInfo gpu;
  gpu.vendor = GpuVendor::kAmd;
  gpu.pci = pci;
  gpu.name = AmdGpuName(pci);
  fs::path dir = PciDir(roots, pci.address);
  gpu.card = DrmCard(roots, dir);
  gpu.vram_total_bytes = ReadNumber(dir / "mem_info_vram_total").value_or(0);
  gpu.gtt_total_bytes = ReadNumber(dir / "mem_info_gtt_total").value_or(0);
  RefreshAmdGpu(roots, &gpu);
  gpu.gfx_target = KfdGfxTarget(roots, pci.address);
  // An unknown APU still shows itself by a small carve-out next to a large GTT.
  bool small_carveout = gpu.vram_total_bytes > 0 && gpu.vram_total_bytes <= 2 * kGiB &&
                        gpu.gtt_total_bytes >= 4 * gpu.vram_total_bytes;
  gpu.integrated = IsApuDeviceId(pci.device_id) || small_carveout;
  gpu.unified_memory = gpu.integrated;
  gpu.source = gpu.gfx_target.empty() ? "sysfs" : "sysfs+kfd";
  return gpu;
}

}  // namespace zest::hardware
