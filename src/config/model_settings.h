// ModelSettings: per-model engine options, from config.toml, one table per
// model name, or from a `POST /api/v1/load` request's "options" (which
// overlay the model's table for that load). Both go through
// SetModelOption, so the names and the checks are the same:
//
//   [models."qwen3:30b"]
//   ctx_size = 32768        # per request (slot)
//   n_gpu_layers = 20
//   device = "Vulkan0"      # or "cpu"
//   kv_type = "q8_0"        # f16, q8_0, q4_0: K and V cache both
//   cache_type_v = "q4_0"   # one of them only; wins over kv_type
//   tensor_split = [3, 1]   # per GPU used, in the engine's device order
//   cache_ram = 2048        # MiB of idle conversations kept in RAM; 0 = none
//   flm = "llama3.2:1b"     # its FastFlowLM build: may run on the NPU
//   draft = "qwen3:0.6b"    # speculative decoding with this draft model
//   speculative = "auto"    # auto, off, ngram, draft, mtp
//   draft_max = 16          # tokens drafted per step, at most
//   extra_args = ["--temp", "0.7"]
//
// Unset fields mean "zest decides" (placement/policy.h). Plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/result.h"

namespace zest::config {

struct ModelSettings {
  std::string device;  // "" = auto, "cpu", "npu", or an engine device ("Vulkan0")
  std::optional<int> n_gpu_layers;
  std::optional<uint64_t> ctx_size;  // per slot
  // The engine's parallel sequences (slots); admission sizes the model's
  // gate from it (scheduler/admission.h).
  std::optional<int> parallel;
  std::string kv_type;  // "" = f16; the shorthand for both caches
  // The K and V cache types on their own ("" = kv_type's): llama.cpp keeps
  // them apart, and V tolerates coarser quantization than K.
  std::string cache_type_k;
  std::string cache_type_v;
  std::optional<bool> flash_attention;
  bool no_mmap = false;
  bool mlock = false;
  std::optional<uint32_t> batch;
  std::optional<uint32_t> ubatch;
  std::optional<int> n_cpu_moe;
  // MiB of host RAM the engine may keep idle conversations in (llama-server's
  // --cache-ram prompt cache); 0 = none; unset = zest sizes it (placement).
  std::optional<uint64_t> cache_ram;
  // The share of the offloaded layers each GPU gets, one non-negative
  // weight per GPU the model is placed on (sum > 0); empty = zest divides
  // by free memory. The count is checked at placement, against the GPUs.
  std::vector<double> tensor_split;
  std::vector<std::string> extra_args;  // checked against the reserved list at placement
  // The model's FastFlowLM checkpoint tag ("llama3.2:1b"): the same model
  // built for the NPU, which placement prefers when the NPU is usable and
  // free (placement/npu.h). Overrides the catalog entry's.
  std::string flm;
  // Speculative decoding: a draft model zest knows (by name; its tokenizer
  // must be this model's, models/tokenizer_match.h), how to draft ("" =
  // "auto": the draft when one is named, else none), and the tokens drafted
  // per step (unset: the engine's defaults). engines/speculative.h maps them.
  std::string draft;
  std::string speculative;
  std::optional<int> draft_max;
  std::optional<int> draft_min;

  bool operator==(const ModelSettings&) const = default;
};

// One option's value as a config file or a JSON body gives it.
// Arrays are all strings or all numbers (integers read as doubles); an
// empty array is an empty vector<string>.
using OptionValue =
    std::variant<bool, int64_t, double, std::string, std::vector<std::string>, std::vector<double>>;

// An array option's value from its items, read apart by the caller (TOML
// or JSON): all strings or all numbers; nullopt when it mixes the two.
std::optional<OptionValue> ArrayOptionValue(std::vector<std::string> strings,
                                            std::vector<double> numbers);

// Sets option `key` (a ModelSettings field name) of `settings` from `value`.
// kInvalidArgument "unknown option 'key'" or "expected <what>" (the caller
// adds where it came from); `settings` is unchanged then.
Status SetModelOption(ModelSettings& settings, std::string_view key, const OptionValue& value);

// A FastFlowLM checkpoint tag: 1-64 characters of [A-Za-z0-9._:-], the
// first a letter or digit, as
// `flm list` spells them ("qwen3:0.6b", "gpt-oss:20b").
bool ValidFlmTag(std::string_view tag);

// The options `settings` sets (unset ones left out), by name, in the same
// form SetModelOption takes: what `zest ps -v` and /api/v1/health show.
std::vector<std::pair<std::string, OptionValue>> SetModelOptions(const ModelSettings& settings);

}  // namespace zest::config
