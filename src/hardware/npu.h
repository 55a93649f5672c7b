// AMD NPUs (Ryzen AI) through the amdxdna driver: the PCI function, its
// /sys/class/accel/accelN node, the firmware version the out-of-tree
// xdna-driver exposes (`fw_version` on the PCI function), and whether a
// program can open it (driver bound, /dev/accel/accelN present).
#pragma once

#include <string>

#include "hardware/inventory.h"

namespace zest::hardware {

inline constexpr uint16_t kXdnaDeviceId = 0x1502;   // Phoenix, Hawk Point
inline constexpr uint16_t kXdna2DeviceId = 0x17f0;  // Strix Point, Strix Halo, Krackan Point

NpuGeneration NpuGenerationFromId(uint16_t device_id);

NpuInfo ReadNpu(const SystemRoots& roots, const PciDevice& pci, const std::string& kernel_release);

// The runtime-PM state of the NPU's PCI function ("active", "suspended"),
// the one activity signal amdxdna exposes in sysfs; "" when absent.
std::string NpuPowerState(const SystemRoots& roots, const NpuInfo& npu);

}  // namespace zest::hardware
