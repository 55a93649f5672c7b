// The hardware inventory: what compute this machine has (CPU, RAM, GPUs, NPUs,
// Vulkan devices) as discovered from sysfs/procfs (through SystemRoots) and,
// on the live machine only, from cpuid, NVML and the Vulkan loader.
// Plain values: an Inventory is built once by Discover() and copied freely;
// live numbers (used memory, busy %) are the sampler's job (sampler.h).
// Placement reads memory per device from here: `total` and `used` per pool,
// `unified_memory` for GPUs that share system RAM.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hardware/system_roots.h"

namespace zest::hardware {

struct CpuInfo {
  std::string vendor;        // "AuthenticAMD", "GenuineIntel", or "" when unknown
  std::string model_name;    // "AMD Ryzen AI 9 HX 370 w/ Radeon 890M"
  std::string architecture;  // "x86_64", "aarch64"
  int sockets = 0;
  int physical_cores = 0;
  int threads = 0;
  // Kernel flag names of the ISA features inference engines care about
  // ("avx2", "avx512f", "avx_vnni", "amx_int8", "neon"...), in a fixed order.
  std::vector<std::string> features;
  std::string features_source;  // "cpuid" (live x86) or "cpuinfo" (flags line)
};

struct MemoryInfo {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t swap_total_bytes = 0;
  uint64_t swap_free_bytes = 0;
};

// A PCI function as sysfs shows it.
struct PciDevice {
  std::string address;      // "0000:c5:00.0"
  uint32_t class_code = 0;  // 0x030000
  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint16_t subsystem_vendor_id = 0;
  uint16_t subsystem_device_id = 0;
  uint8_t revision = 0;
  std::string driver;  // bound driver's name, "" when none
};

enum class GpuVendor { kAmd, kNvidia, kIntel };
const char* GpuVendorName(GpuVendor vendor);  // "amd", "nvidia", "intel"

struct GpuInfo {
  GpuVendor vendor = GpuVendor::kAmd;
  std::string name;  // "AMD Radeon 890M", "NVIDIA GeForce RTX 4090"
  PciDevice pci;
  std::string card;  // DRM card ("card1"), "" when none
  bool integrated = false;
  // The GPU allocates from system RAM (APUs): its memory competes with the
  // CPU's, so placement must count one pool, not two.
  bool unified_memory = false;
  uint64_t vram_total_bytes = 0;  // 0 when unknown (NVIDIA without NVML)
  uint64_t vram_used_bytes = 0;
  uint64_t gtt_total_bytes = 0;  // AMD: system memory the GPU can map
  uint64_t gtt_used_bytes = 0;
  std::optional<int> busy_percent;
  std::string gfx_target;          // AMD: "gfx1151"
  std::string compute_capability;  // NVIDIA: "8.9"
  std::string driver_version;      // NVIDIA: "550.54.14"
  std::string source;              // what filled it: "sysfs+kfd", "nvml", "procfs"
};

enum class NpuGeneration { kUnknown, kXdna, kXdna2 };
const char* NpuGenerationName(NpuGeneration generation);  // "XDNA", "XDNA2", "unknown"

struct NpuInfo {
  std::string name;  // "AMD XDNA2 NPU (Strix/Krackan)"
  NpuGeneration generation = NpuGeneration::kUnknown;
  PciDevice pci;
  std::string accel;             // "accel0", "" when the driver made none
  std::string firmware_version;  // "1.1.2.64", "" when the driver does not expose it
  std::string driver_version;    // module version, or "kernel 6.14.0" for in-tree
  bool usable = false;           // driver bound and /dev/accel/accelN present
  std::string reason;            // why not usable ("" when usable)
};

struct VulkanDevice {
  std::string name;         // "AMD Radeon 8060S (RADV GFX1151)", "llvmpipe (...)"
  std::string type;         // "integrated", "discrete", "virtual", "cpu", "other"
  std::string api_version;  // "1.3.255"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint64_t device_local_bytes = 0;  // sum of DEVICE_LOCAL heaps
};

struct Inventory {
  CpuInfo cpu;
  MemoryInfo memory;
  std::vector<GpuInfo> gpus;
  std::vector<NpuInfo> npus;
  std::vector<VulkanDevice> vulkan;
  std::string kernel_release;  // /proc/sys/kernel/osrelease
  // Discovery never fails as a whole; what it could not read is said here.
  std::vector<std::string> notes;
};

struct DiscoverOptions {
  // Ask the live libraries (cpuid, NVML, Vulkan). Ignored (treated as false)
  // when the roots are not the live /sys and /proc.
  bool live_libraries = true;
};

// Reads everything; blocking, typically a few milliseconds (the Vulkan
// loader dominates on machines with GPU drivers). Thread-safe.
Inventory Discover(const SystemRoots& roots, const DiscoverOptions& options = {});

}  // namespace zest::hardware
