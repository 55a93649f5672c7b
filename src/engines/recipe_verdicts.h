// Verdicts: for each recipe (an engine build on a kind of device), whether
// this machine can run it now, could after installing something, or cannot,
// with the reason in words a user can act on. Pure function of the inventory
// and what the engines report; no I/O. Recipes are engine knowledge, so
// they live here, not in hardware/.
#pragma once

#include <string>
#include <vector>

#include "engines/engine_probe.h"
#include "hardware/inventory.h"

namespace zest::engines {

class EngineSet;

// The recipes zest runs (EngineAdapter::recipe()), and the NPU one it knows
// of but does not run yet ("ryzenai").
inline constexpr const char* kLlamaCppRecipe = "llamacpp";   // llama-server: CPU, GPUs
inline constexpr const char* kFlmRecipe = "flm";             // FastFlowLM: the NPU
inline constexpr const char* kWhisperRecipe = "whispercpp";  // whisper-server: speech
inline constexpr const char* kSdRecipe = "sdcpp";            // sd-server: images

// What zest knows about its engines (FactsOf below).
struct EngineFacts {
  bool llama_server_found = false;
  std::string llama_server_source;  // "system", "rootfs", "configured"
  bool probed = false;              // --list-devices ran (false: devices unknown)
  std::vector<EngineDevice> devices;
  std::string error;  // why the engine could not be located or probed
  // FastFlowLM's `flm`, the NPU engine; empty = not installed.
  std::string flm_path;
  bool whisper_server_found = false;
  std::string whisper_server_source;
  bool sd_server_found = false;
  std::string sd_server_source;
};

// The facts of `engines` (its language engine's probe: null when not run).
EngineFacts FactsOf(const EngineSet& engines, const Result<EngineInfo>* probed);

enum class Verdict { kUsable, kInstallable, kUnsupported, kUnknown };
const char* VerdictName(Verdict verdict);  // "usable", "installable", "unsupported", "unknown"

struct RecipeVerdict {
  std::string recipe;   // "llamacpp", "flm", "ryzenai", "whispercpp", "sdcpp"
  std::string backend;  // "cpu", "vulkan", "rocm", "cuda", "npu"
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
};

// The NPU firmware zest requires for its NPU recipes: one place to raise
// when an engine's release notes demand newer firmware.
inline constexpr const char* kMinNpuFirmware = "1.1.0.0";

// -1, 0, 1 comparing dotted versions numerically ("1.10" > "1.9"); missing
// parts count as 0.
int CompareVersions(const std::string& a, const std::string& b);

std::vector<RecipeVerdict> RecipeVerdicts(const hardware::Inventory& inventory,
                                          const EngineFacts& engines);

}  // namespace zest::engines
