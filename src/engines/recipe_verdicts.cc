#include "engines/recipe_verdicts.h"

#include <sstream>

#include "engines/engine_set.h"

namespace zest::engines {

using hardware::GpuVendor;
using hardware::Inventory;
using hardware::NpuGeneration;
using hardware::NpuInfo;

namespace {

std::vector<uint64_t> VersionParts(const std::string& v) {
  std::vector<uint64_t> parts;
  std::istringstream in(v);
  for (std::string p; std::getline(in, p, '.');)
    parts.push_back(std::strtoull(p.c_str(), nullptr, 10));
  return parts;
}

bool HasGpu(const Inventory& inv, GpuVendor vendor) {
  for (const auto& g : inv.gpus) {
    if (g.vendor == vendor) return true;
  }
  return false;
}

RecipeVerdict CpuVerdict(const Inventory& inv, const EngineFacts& engines) {
  RecipeVerdict v{kLlamaCppRecipe, "cpu", Verdict::kUsable, ""};
  std::string cpu = std::to_string(inv.cpu.threads) + " threads";
  bool avx2 = false;
  for (const auto& f : inv.cpu.features) avx2 = avx2 || f == "avx2" || f == "neon";
  if (!avx2) cpu += ", no AVX2/NEON (slow)";
  if (!engines.llama_server_found) {
    v.verdict = Verdict::kInstallable;
    v.reason = "llama-server is not installed; `make engines` provisions it (" + cpu + ")";
    return v;
  }
  v.reason = "llama-server (" + engines.llama_server_source + ") on " + cpu;
  return v;
}

std::string EngineVulkanDevice(const EngineFacts& engines) {
  for (const auto& d : engines.devices) {
    if (d.name.rfind("Vulkan", 0) == 0) return d.name + ": " + d.description;
  }
  return "";
}

RecipeVerdict VulkanVerdict(const Inventory& inv, const EngineFacts& engines) {
  RecipeVerdict v{kLlamaCppRecipe, "vulkan", Verdict::kUnsupported, ""};
  std::string device = EngineVulkanDevice(engines);
  if (!device.empty()) {
    v.verdict = Verdict::kUsable;
    v.reason = "llama-server sees " + device;
    return v;
  }
  if (inv.gpus.empty() && inv.vulkan.empty()) {
    v.reason = "no GPU and no Vulkan device";
    return v;
  }
  if (engines.llama_server_found && !engines.probed) {
    v.verdict = Verdict::kUnknown;
    v.reason = "a GPU is present; the engine's devices were not probed (start zest to check)";
    return v;
  }
  v.verdict = Verdict::kInstallable;
  v.reason =
      "a GPU is present but the engine has no Vulkan backend; `ZEST_ENGINE_VULKAN=1 make engines` "
      "adds it";
  return v;
}

RecipeVerdict RocmVerdict(const Inventory& inv) {
  RecipeVerdict v{kLlamaCppRecipe, "rocm", Verdict::kUnsupported, ""};
  if (!HasGpu(inv, GpuVendor::kAmd)) {
    v.reason = "no AMD GPU";
    return v;
  }
  v.reason =
      "zest provisions no ROCm build of llama-server yet; the AMD GPU runs through llamacpp-vulkan";
  return v;
}

RecipeVerdict CudaVerdict(const Inventory& inv) {
  RecipeVerdict v{kLlamaCppRecipe, "cuda", Verdict::kUnsupported, ""};
  if (!HasGpu(inv, GpuVendor::kNvidia)) {
    v.reason = "no NVIDIA GPU";
    return v;
  }
  v.reason =
      "zest provisions no CUDA build of llama-server yet; the NVIDIA GPU runs through "
      "llamacpp-vulkan";
  return v;
}

// NPU recipes need an XDNA2 NPU the driver made usable, with firmware at
// least kMinNpuFirmware, and the engine installed (`engine_path`; zest
// provisions neither NPU engine, so without it the best is "installable").
RecipeVerdict NpuVerdict(const Inventory& inv, const std::string& recipe, const std::string& engine,
                         const std::string& engine_path) {
  RecipeVerdict v{recipe, "npu", Verdict::kUnsupported, ""};
  if (inv.npus.empty()) {
    v.reason = "no NPU";
    return v;
  }
  const NpuInfo& npu = inv.npus.front();
  if (npu.generation != NpuGeneration::kXdna2) {
    v.reason = engine + " needs an XDNA2 NPU (Ryzen AI 300/Strix); this one is " + npu.name;
    return v;
  }
  if (!npu.usable) {
    v.reason = "the NPU is not usable: " + npu.reason;
    return v;
  }
  if (npu.firmware_version.empty()) {
    v.verdict = Verdict::kUnknown;
    v.reason = "the driver does not expose the NPU firmware version; " + engine + " needs " +
               kMinNpuFirmware + " or newer";
    return v;
  }
  if (CompareVersions(npu.firmware_version, kMinNpuFirmware) < 0) {
    v.reason = "NPU firmware " + npu.firmware_version + " is older than the " + kMinNpuFirmware +
               " " + engine + " needs";
    return v;
  }
  if (!engine_path.empty()) {
    v.verdict = Verdict::kUsable;
    v.reason =
        engine + " (" + engine_path + ") on the XDNA2 NPU (firmware " + npu.firmware_version + ")";
    return v;
  }
  v.verdict = Verdict::kInstallable;
  v.reason = "the XDNA2 NPU qualifies (firmware " + npu.firmware_version + "); install " + engine +
             " to use it";
  return v;
}

// Ryzen AI Server: the NPU's own verdict where the hardware rules it out;
// where it would qualify, still unsupported, because zest has no adapter
// for that engine (installing it would change nothing).
RecipeVerdict RyzenAiVerdict(const Inventory& inv) {
  RecipeVerdict v = NpuVerdict(inv, "ryzenai", "Ryzen AI Server", "");
  if (v.verdict == Verdict::kUnsupported) return v;
  v.verdict = Verdict::kUnsupported;
  v.reason = "zest does not run Ryzen AI Server yet; the flm recipe (FastFlowLM) uses this NPU";
  return v;
}

// A recipe that runs one engine on the CPU: usable once the engine is
// found (saying where), else installable with `how`.
RecipeVerdict CpuEngineVerdict(const Inventory& inv, const char* recipe, const std::string& engine,
                               bool found, const std::string& source, const std::string& how) {
  RecipeVerdict v{recipe, "cpu", Verdict::kUsable, ""};
  const std::string cpu = std::to_string(inv.cpu.threads) + " threads";
  if (!found) {
    v.verdict = Verdict::kInstallable;
    v.reason = engine + " is not installed: " + how + " (" + cpu + ")";
    return v;
  }
  v.reason = engine + " (" + source + ") on " + cpu;
  return v;
}

RecipeVerdict WhisperVerdict(const Inventory& inv, const EngineFacts& engines) {
  return CpuEngineVerdict(inv, kWhisperRecipe, "whisper-server", engines.whisper_server_found,
                          engines.whisper_server_source, "`make engines` provisions it");
}

// stable-diffusion.cpp's sd-server: no package here ships it, so where it
// is missing the verdict says how to get it.
RecipeVerdict SdVerdict(const Inventory& inv, const EngineFacts& engines) {
  return CpuEngineVerdict(
      inv, kSdRecipe, "sd-server", engines.sd_server_found, engines.sd_server_source,
      "build stable-diffusion.cpp's examples/server and set engine.sd_server to it");
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kUsable:
      return "usable";
    case Verdict::kInstallable:
      return "installable";
    case Verdict::kUnsupported:
      return "unsupported";
    case Verdict::kUnknown:
      break;
  }
  return "unknown";
}

int CompareVersions(const std::string& a, const std::string& b) {
  std::vector<uint64_t> x = VersionParts(a), y = VersionParts(b);
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    uint64_t p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

std::vector<RecipeVerdict> RecipeVerdicts(const Inventory& inv, const EngineFacts& engines) {
  return {CpuVerdict(inv, engines),
          VulkanVerdict(inv, engines),
          RocmVerdict(inv),
          CudaVerdict(inv),
          NpuVerdict(inv, kFlmRecipe, "FastFlowLM", engines.flm_path),
          RyzenAiVerdict(inv),
          WhisperVerdict(inv, engines),
          SdVerdict(inv, engines)};
}

}  // namespace zest::engines

namespace zest::engines {

EngineFacts FactsOf(const EngineSet& engines, const Result<EngineInfo>* probed) {
  EngineFacts facts;
  if (const EngineAdapter* language = engines.language()) {
    EngineDescription d = language->Describe(nullptr);
    facts.llama_server_found = d.available.ok();
    facts.llama_server_source = d.source;
    if (!d.available.ok()) facts.error = d.available.message();
  }
  if (facts.llama_server_found && probed != nullptr) {
    if (probed->ok()) {
      facts.probed = true;
      facts.devices = (*probed)->devices;
    } else {
      facts.error = probed->status().message();
    }
  }
  if (const EngineAdapter* npu = engines.npu(); npu != nullptr && npu->Available().ok()) {
    facts.flm_path = npu->Describe(nullptr).binary;
  }
  if (const EngineAdapter* speech = engines.speech()) {
    EngineDescription d = speech->Describe(nullptr);
    facts.whisper_server_found = d.available.ok();
    facts.whisper_server_source = d.source;
  }
  if (const EngineAdapter* images = engines.images()) {
    EngineDescription d = images->Describe(nullptr);
    facts.sd_server_found = d.available.ok();
    facts.sd_server_source = d.source;
  }
  return facts;
}

}  // namespace zest::engines
