// PCI functions from /sys/bus/pci/devices/*: class, ids and bound driver.
// Discovery classifies them: display controllers (class 0x03xxxx) from AMD,
// NVIDIA and Intel are GPUs; processing accelerators (0x1180xx) or anything
// bound to amdxdna are NPUs.
#pragma once

#include <filesystem>
#include <vector>

#include "hardware/inventory.h"

namespace zest::hardware {

inline constexpr uint16_t kVendorAmd = 0x1002;
inline constexpr uint16_t kVendorAmdNpu = 0x1022;  // AMD's CPU-side id, used by the NPU
inline constexpr uint16_t kVendorNvidia = 0x10de;
inline constexpr uint16_t kVendorIntel = 0x8086;

// The function's sysfs directory, e.g. <sysfs>/bus/pci/devices/0000:c5:00.0.
std::filesystem::path PciDir(const SystemRoots& roots, const std::string& address);

// Reads one function's attributes from its directory.
PciDevice ReadPciDevice(const std::filesystem::path& dir);

// Every function, sorted by address; empty when sysfs has no PCI bus.
std::vector<PciDevice> ListPciDevices(const SystemRoots& roots);

bool IsGpu(const PciDevice& device);
bool IsNpu(const PciDevice& device);

}  // namespace zest::hardware
