#include "hardware/nvidia.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "hardware/pci.h"

namespace zest::hardware {
namespace fs = std::filesystem;

namespace {

// "Model: \t\t NVIDIA GeForce RTX 4090" → value of the key in the
// /proc/driver/nvidia/gpus/<address>/information file.
std::string InformationField(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon != std::string::npos && Trim(line.substr(0, colon)) == key) {
      return Trim(line.substr(colon + 1));
    }
  }
  return "";
}

std::string LowerAddress(std::string address) {
  std::transform(address.begin(), address.end(), address.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return address;
}

}  // namespace

std::string ParseNvidiaDriverVersion(const std::string& text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..."
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.find("NVRM version") == std::string::npos) return "";
  std::istringstream words(line);
  for (std::string w; words >> w;) {
    if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0])) &&
        w.find('.') != std::string::npos) {
      return w;
    }
  }
  return "";
}

std::string NvidiaComputeCapabilityFromId(uint16_t id) {
  static const std::map<uint16_t, std::string> kKnown = {
      {0x2684, "8.9"},   // RTX 4090
      {0x2704, "8.9"},   // RTX 4080
      {0x2204, "8.6"},   // RTX 3090
      {0x20b0, "8.0"},   // A100 SXM4 40GB
      {0x2330, "9.0"},   // H100 SXM5
      {0x2335, "9.0"},   // H200
      {0x2b85, "12.0"},  // RTX 5090
  };
  auto it = kKnown.find(id);
  return it == kKnown.end() ? "" : it->second;
}

GpuInfo ReadNvidiaGpuFallback(const SystemRoots& roots, const PciDevice& pci) {
  GpuInfo gpu;
  gpu.vendor = GpuVendor::kNvidia;
  gpu.pci = pci;
  gpu.source = "procfs";
  auto info =
      ReadFile(roots.Proc("driver/nvidia/gpus") / LowerAddress(pci.address) / "information");
  if (info) gpu.name = InformationField(*info, "Model");
  if (gpu.name.empty()) {
    gpu.name = fmt::format("NVIDIA GPU 0x{:04x}", pci.device_id);
    gpu.source = "sysfs";
  }
  gpu.driver_version =
      ParseNvidiaDriverVersion(ReadFile(roots.Proc("driver/nvidia/version")).value_or(""));
  gpu.compute_capability = NvidiaComputeCapabilityFromId(pci.device_id);
  return gpu;
}

// The NVML entry points zest uses, with the C signatures from NVIDIA's NVML
// API reference. Opaque handles are pointers; return codes are ints (0 ok).
struct Nvml::Api {
  struct Memory {
    unsigned long long total, free, used;
  };
  struct Utilization {
    unsigned int gpu, memory;
  };
  struct PciInfo {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
  };
  using Device = void*;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned int*) = nullptr;
  int (*by_index)(unsigned int, Device*) = nullptr;
  int (*name)(Device, char*, unsigned int) = nullptr;
  int (*memory)(Device, Memory*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*capability)(Device, int*, int*) = nullptr;
  int (*pci)(Device, PciInfo*) = nullptr;
  int (*driver_version)(char*, unsigned int) = nullptr;
};

namespace {

template <typename Fn>
bool Bind(void* handle, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(::dlsym(handle, symbol));
  return *fn != nullptr;
}

}  // namespace

std::unique_ptr<Nvml> Nvml::Open() {
  void* handle = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  auto api = std::make_unique<Api>();
  bool ok = Bind(handle, "nvmlInit_v2", &api->init) &&
            Bind(handle, "nvmlShutdown", &api->shutdown) &&
            Bind(handle, "nvmlDeviceGetCount_v2", &api->count) &&
            Bind(handle, "nvmlDeviceGetHandleByIndex_v2", &api->by_index) &&
            Bind(handle, "nvmlDeviceGetName", &api->name) &&
            Bind(handle, "nvmlDeviceGetMemoryInfo", &api->memory) &&
            Bind(handle, "nvmlDeviceGetUtilizationRates", &api->utilization) &&
            Bind(handle, "nvmlDeviceGetCudaComputeCapability", &api->capability) &&
            Bind(handle, "nvmlDeviceGetPciInfo_v3", &api->pci) &&
            Bind(handle, "nvmlSystemGetDriverVersion", &api->driver_version);
  if (!ok || api->init() != 0) {
    ::dlclose(handle);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(handle, std::move(api)));
}

Nvml::Nvml(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  ::dlclose(handle_);
}

bool Nvml::Fill(GpuInfo* gpu) {
  unsigned int domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(gpu->pci.address.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) !=
      4) {
    return false;
  }
  unsigned int count = 0;
  if (api_->count(&count) != 0) return false;
  for (unsigned int i = 0; i < count; ++i) {
    Api::Device dev = nullptr;
    Api::PciInfo pci{};
    if (api_->by_index(i, &dev) != 0 || api_->pci(dev, &pci) != 0) continue;
    if (pci.domain != domain || pci.bus != bus || pci.device != device) continue;
    char text[96] = {};
    if (api_->name(dev, text, sizeof text) == 0) gpu->name = text;
    Api::Memory mem{};
    if (api_->memory(dev, &mem) == 0) {
      gpu->vram_total_bytes = mem.total;
      gpu->vram_used_bytes = mem.used;
    }
    Api::Utilization util{};
    if (api_->utilization(dev, &util) == 0) gpu->busy_percent = static_cast<int>(util.gpu);
    int major = 0, minor = 0;
    if (api_->capability(dev, &major, &minor) == 0)
      gpu->compute_capability = fmt::format("{}.{}", major, minor);
    if (api_->driver_version(text, sizeof text) == 0) gpu->driver_version = text;
    gpu->source = "nvml";
    return true;
  }
  return false;
}

}  // namespace zest::hardware
