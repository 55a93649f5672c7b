#include "hardware/npu.h"

#include "hardware/pci.h"

namespace zest::hardware {
namespace fs = std::filesystem;

namespace {

std::string AccelNode(const SystemRoots& roots, const fs::path& pci_dir) {
  std::error_code ec;
  fs::path target = fs::canonical(pci_dir, ec);
  if (ec) return "";
  for (const auto& entry : fs::directory_iterator(roots.Sys("class/accel"), ec)) {
    std::error_code ec2;
    if (fs::canonical(entry.path() / "device", ec2) == target && !ec2) {
      return entry.path().filename().string();
    }
  }
  return "";
}

std::string NpuName(NpuGeneration generation) {
  switch (generation) {
    case NpuGeneration::kXdna:
      return "AMD XDNA NPU (Phoenix/Hawk Point)";
    case NpuGeneration::kXdna2:
      return "AMD XDNA2 NPU (Strix/Krackan)";
    case NpuGeneration::kUnknown:
      break;
  }
  return "NPU";
}

// Out-of-tree amdxdna builds carry a module version; the in-tree driver
// (Linux 6.14+) is versioned by the kernel.
std::string DriverVersion(const SystemRoots& roots, const std::string& driver,
                          const std::string& kernel_release) {
  if (driver.empty()) return "";
  auto version = ReadLine(roots.Sys("module") / driver / "version");
  if (version && !version->empty()) return *version;
  return kernel_release.empty() ? "" : "kernel " + kernel_release;
}

std::string UnusableReason(const SystemRoots& roots, const NpuInfo& npu) {
  if (npu.pci.driver.empty()) return "no driver is bound (the amdxdna module is not loaded)";
  if (npu.pci.driver != "amdxdna") return "bound to " + npu.pci.driver + ", not amdxdna";
  if (npu.accel.empty()) return "amdxdna created no accel device";
  std::error_code ec;
  if (!fs::exists(roots.Dev("accel") / npu.accel, ec))
    return "/dev/accel/" + npu.accel + " is missing";
  return "";
}

}  // namespace

const char* NpuGenerationName(NpuGeneration generation) {
  switch (generation) {
    case NpuGeneration::kXdna:
      return "XDNA";
    case NpuGeneration::kXdna2:
      return "XDNA2";
    case NpuGeneration::kUnknown:
      break;
  }
  return "unknown";
}

NpuGeneration NpuGenerationFromId(uint16_t device_id) {
  if (device_id == kXdnaDeviceId) return NpuGeneration::kXdna;
  if (device_id == kXdna2DeviceId) return NpuGeneration::kXdna2;
  return NpuGeneration::kUnknown;
}

NpuInfo ReadNpu(const SystemRoots& roots, const PciDevice& pci, const std::string& kernel_release) {
  NpuInfo npu;
  npu.pci = pci;
  npu.generation = pci.vendor_id == kVendorAmdNpu || pci.vendor_id == kVendorAmd
                       ? NpuGenerationFromId(pci.device_id)
                       : NpuGeneration::kUnknown;
  npu.name = NpuName(npu.generation);
  fs::path dir = PciDir(roots, pci.address);
  npu.accel = AccelNode(roots, dir);
  npu.firmware_version = ReadLine(dir / "fw_version").value_or("");
  npu.driver_version = DriverVersion(roots, pci.driver, kernel_release);
  npu.reason = UnusableReason(roots, npu);
  npu.usable = npu.reason.empty();
  return npu;
}

std::string NpuPowerState(const SystemRoots& roots, const NpuInfo& npu) {
  return ReadLine(PciDir(roots, npu.pci.address) / "power/runtime_status").value_or("");
}

}  // namespace zest::hardware
