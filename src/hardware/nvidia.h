// NVIDIA GPUs. With the driver's NVML library (dlopen'd, never linked, so
// zest runs where it is absent) discovery gets memory, utilisation, compute
// capability and driver version. Without it (or on fixtures) it falls back to
// /proc/driver/nvidia (model name, driver version) and PCI ids; memory is
// then unknown (0).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hardware/inventory.h"

namespace zest::hardware {

// Fills an NVIDIA GPU from procfs and sysfs only.
GpuInfo ReadNvidiaGpuFallback(const SystemRoots& roots, const PciDevice& pci);

// Parses the NVRM line of /proc/driver/nvidia/version → "550.54.14".
std::string ParseNvidiaDriverVersion(const std::string& version_file);

// "8.9" for a few well-known device ids (the compute capability NVML would
// report), "" when unknown.
std::string NvidiaComputeCapabilityFromId(uint16_t device_id);

// An open NVML session. Not thread-safe: one owner (discovery, or the sampler
// thread) at a time.
class Nvml {
 public:
  // nullptr when libnvidia-ml.so.1 is absent or nvmlInit fails.
  static std::unique_ptr<Nvml> Open();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // Updates `gpu` (matched by PCI address) with NVML's view; false when NVML
  // does not know that address.
  bool Fill(GpuInfo* gpu);

 private:
  struct Api;
  Nvml(void* handle, std::unique_ptr<Api> api);
  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace zest::hardware
