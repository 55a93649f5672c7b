#include "hardware/inventory.h"

#include <memory>

#include "hardware/amd_gpu.h"
#include "hardware/cpu.h"
#include "hardware/memory.h"
#include "hardware/npu.h"
#include "hardware/nvidia.h"
#include "hardware/pci.h"
#include "hardware/vulkan.h"

namespace zest::hardware {

const char* GpuVendorName(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kAmd:
      return "amd";
    case GpuVendor::kNvidia:
      return "nvidia";
    case GpuVendor::kIntel:
      return "intel";
  }
  return "unknown";
}

namespace {

GpuInfo ReadIntelGpu(const PciDevice& pci) {
  GpuInfo gpu;
  gpu.vendor = GpuVendor::kIntel;
  gpu.pci = pci;
  gpu.name = "Intel GPU";
  // Intel's iGPUs sit at 00:02.0 and share system RAM; discrete Arc cards
  // live elsewhere.
  gpu.integrated =
      pci.address.size() >= 7 && pci.address.substr(pci.address.size() - 7) == "00:02.0";
  gpu.unified_memory = gpu.integrated;
  gpu.source = "sysfs";
  return gpu;
}

void AddGpus(const SystemRoots& roots, const std::vector<PciDevice>& pci, bool live,
             Inventory* inv) {
  std::unique_ptr<Nvml> nvml;
  for (const PciDevice& d : pci) {
    if (!IsGpu(d)) continue;
    if (d.vendor_id == kVendorAmd) {
      inv->gpus.push_back(ReadAmdGpu(roots, d));
    } else if (d.vendor_id == kVendorNvidia) {
      GpuInfo gpu = ReadNvidiaGpuFallback(roots, d);
      if (live && !nvml) nvml = Nvml::Open();
      if (!nvml || !nvml->Fill(&gpu)) {
        inv->notes.push_back("NVML unavailable for " + d.address +
                             ": memory and utilisation unknown");
      }
      inv->gpus.push_back(gpu);
    } else {
      inv->gpus.push_back(ReadIntelGpu(d));
    }
  }
}

}  // namespace

Inventory Discover(const SystemRoots& roots, const DiscoverOptions& options) {
  bool live = options.live_libraries && roots.IsLive();
  Inventory inv;
  inv.kernel_release = ReadLine(roots.Proc("sys/kernel/osrelease")).value_or("");
  inv.cpu = DiscoverCpu(roots, live);
  inv.memory = DiscoverMemory(roots);
  if (inv.memory.total_bytes == 0)
    inv.notes.push_back("cannot read " + roots.Proc("meminfo").string());
  std::vector<PciDevice> pci = ListPciDevices(roots);
  AddGpus(roots, pci, live, &inv);
  for (const PciDevice& d : pci) {
    if (IsNpu(d)) inv.npus.push_back(ReadNpu(roots, d, inv.kernel_release));
  }
  if (live) inv.vulkan = EnumerateVulkanDevices();
  return inv;
}

}  // namespace zest::hardware
