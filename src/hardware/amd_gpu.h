// AMD GPUs through amdgpu's sysfs (memory pools, busy %) and the KFD topology
// (gfx target). amdgpu puts its attributes on the PCI function itself, which
// /sys/class/drm/cardN/device links to.
#pragma once

#include <cstdint>
#include <string>

#include "hardware/inventory.h"

namespace zest::hardware {

// KFD's gfx_target_version (major*10000 + minor*100 + stepping, e.g. 110501)
// → the LLVM target name ("gfx1151"); minor and stepping print in hex, so
// 90010 → "gfx90a". "" for 0.
std::string GfxTargetName(uint64_t gfx_target_version);

// Fills an AMD GPU from its PCI function: name, DRM card, VRAM/GTT, busy %,
// gfx target, integrated/unified.
GpuInfo ReadAmdGpu(const SystemRoots& roots, const PciDevice& pci);

// The live numbers the sampler refreshes (VRAM/GTT used, busy %).
void RefreshAmdGpu(const SystemRoots& roots, GpuInfo* gpu);

}  // namespace zest::hardware
