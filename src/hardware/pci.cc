#include "hardware/pci.h"

#include <algorithm>

namespace zest::hardware {
namespace fs = std::filesystem;

fs::path PciDir(const SystemRoots& roots, const std::string& address) {
  return roots.Sys("bus/pci/devices") / address;
}

PciDevice ReadPciDevice(const fs::path& dir) {
  PciDevice d;
  d.address = dir.filename().string();
  d.class_code = static_cast<uint32_t>(ReadNumber(dir / "class").value_or(0));
  d.vendor_id = static_cast<uint16_t>(ReadNumber(dir / "vendor").value_or(0));
  d.device_id = static_cast<uint16_t>(ReadNumber(dir / "device").value_or(0));
  d.subsystem_vendor_id = static_cast<uint16_t>(ReadNumber(dir / "subsystem_vendor").value_or(0));
  d.subsystem_device_id = static_cast<uint16_t>(ReadNumber(dir / "subsystem_device").value_or(0));
  d.revision = static_cast<uint8_t>(ReadNumber(dir / "revision").value_or(0));
  d.driver = LinkName(dir / "driver");
  return d;
}

std::vector<PciDevice> ListPciDevices(const SystemRoots& roots) {
  std::vector<PciDevice> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(roots.Sys("bus/pci/devices"), ec)) {
    out.push_back(ReadPciDevice(entry.path()));
  }
  std::sort(out.begin(), out.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return out;
}

bool IsGpu(const PciDevice& d) {
  bool display = (d.class_code >> 16) == 0x03;
  bool known_vendor =
      d.vendor_id == kVendorAmd || d.vendor_id == kVendorNvidia || d.vendor_id == kVendorIntel;
  return display && known_vendor;
}

bool IsNpu(const PciDevice& d) { return (d.class_code >> 8) == 0x1180 || d.driver == "amdxdna"; }

}  // namespace zest::hardware
