// ModelSettings: per-model engine options from config.toml, one table per
// model name:
//
//   [models."qwen3:30b"]
//   ctx_size = 32768        # per request (slot)
//   n_gpu_layers = 20
//   device = "Vulkan0"      # or "cpu"
//   kv_type = "q8_0"        # f16, q8_0, q4_0
//   extra_args = ["--temp", "0.7"]
//
// Unset fields mean "zest decides" (placement/policy.h). Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zest::config {

struct ModelSettings {
  std::string device;  // "" = auto, "cpu", or an engine device ("Vulkan0")
  std::optional<int> n_gpu_layers;
  std::optional<uint64_t> ctx_size;  // per slot
  std::optional<int> parallel;
  std::string kv_type;  // "" = f16
  std::optional<bool> flash_attention;
  bool no_mmap = false;
  bool mlock = false;
  std::optional<uint32_t> batch;
  std::optional<uint32_t> ubatch;
  std::optional<int> n_cpu_moe;
  std::vector<std::string> extra_args;  // checked against the reserved list at placement
};

}  // namespace zest::config
