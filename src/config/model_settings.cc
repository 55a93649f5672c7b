#include "config/model_settings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>

namespace zest::config {
namespace {

// Sets one field; false when the value is of the wrong kind or out of range.
using Setter = std::function<bool(const OptionValue&, ModelSettings&)>;
using Getter = std::function<std::optional<OptionValue>(const ModelSettings&)>;

struct Option {
  Setter set;
  Getter get;
  const char* expected;  // for the error message
};

template <typename T>
Option Int(std::optional<T> ModelSettings::*member, int64_t min, int64_t max, const char* what) {
  return {[=](const OptionValue& v, ModelSettings& m) {
            const int64_t* n = std::get_if<int64_t>(&v);
            if (n == nullptr || *n < min || *n > max) return false;
            m.*member = static_cast<T>(*n);
            return true;
          },
          [=](const ModelSettings& m) -> std::optional<OptionValue> {
            if (!(m.*member)) return std::nullopt;
            return OptionValue(static_cast<int64_t>(*(m.*member)));
          },
          what};
}

Option Flag(bool ModelSettings::*member) {
  return {[=](const OptionValue& v, ModelSettings& m) {
            const bool* b = std::get_if<bool>(&v);
            if (b != nullptr) m.*member = *b;
            return b != nullptr;
          },
          [=](const ModelSettings& m) -> std::optional<OptionValue> {
            if (!(m.*member)) return std::nullopt;
            return OptionValue(true);
          },
          "true or false"};
}

Option Text(std::string ModelSettings::*member, const std::vector<std::string>& allowed,
            const char* what) {
  return {
      [=](const OptionValue& v, ModelSettings& m) {
        const std::string* s = std::get_if<std::string>(&v);
        if (s == nullptr) return false;
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
          return false;
        }
        m.*member = *s;
        return true;
      },
      [=](const ModelSettings& m) -> std::optional<OptionValue> {
        if ((m.*member).empty()) return std::nullopt;
        return OptionValue(m.*member);
      },
      what};
}

// llama.cpp takes at most 16 devices; an all-zero split would mean "the
// engine's default" to it, which is not what a user writing one meant.
bool SetTensorSplit(const OptionValue& v, ModelSettings& m) {
  const auto* weights = std::get_if<std::vector<double>>(&v);
  if (weights == nullptr || weights->empty() || weights->size() > 16) return false;
  double sum = 0;
  for (double w : *weights) {
    if (!std::isfinite(w) || w < 0) return false;
    sum += w;
  }
  if (sum <= 0) return false;
  m.tensor_split = *weights;
  return true;
}

const std::map<std::string, Option, std::less<>>& Options() {
  static const std::vector<std::string> kKvTypes = {"f16", "q8_0", "q4_0"};
  static const std::map<std::string, Option, std::less<>> kOptions = {
      {"device", Text(&ModelSettings::device, {}, "a device name")},
      {"n_gpu_layers", Int(&ModelSettings::n_gpu_layers, 0, 100000, "a layer count")},
      {"ctx_size", Int(&ModelSettings::ctx_size, 1, 1 << 24, "a context length")},
      {"parallel", Int(&ModelSettings::parallel, 1, 256, "1 to 256")},
      {"kv_type", Text(&ModelSettings::kv_type, kKvTypes, "f16, q8_0 or q4_0")},
      {"cache_type_k", Text(&ModelSettings::cache_type_k, kKvTypes, "f16, q8_0 or q4_0")},
      {"cache_type_v", Text(&ModelSettings::cache_type_v, kKvTypes, "f16, q8_0 or q4_0")},
      {"flash_attention",
       {[](const OptionValue& v, ModelSettings& m) {
          const bool* b = std::get_if<bool>(&v);
          if (b != nullptr) m.flash_attention = *b;
          return b != nullptr;
        },
        [](const ModelSettings& m) -> std::optional<OptionValue> {
          if (!m.flash_attention) return std::nullopt;
          return OptionValue(*m.flash_attention);
        },
        "true or false"}},
      {"no_mmap", Flag(&ModelSettings::no_mmap)},
      {"mlock", Flag(&ModelSettings::mlock)},
      {"batch", Int(&ModelSettings::batch, 1, 1 << 20, "a token count")},
      {"ubatch", Int(&ModelSettings::ubatch, 1, 1 << 20, "a token count")},
      {"n_cpu_moe", Int(&ModelSettings::n_cpu_moe, 0, 100000, "a layer count")},
      {"cache_ram", Int(&ModelSettings::cache_ram, 0, 1 << 20, "MiB, 0 to 1048576")},
      {"tensor_split",
       {SetTensorSplit,
        [](const ModelSettings& m) -> std::optional<OptionValue> {
          if (m.tensor_split.empty()) return std::nullopt;
          return OptionValue(m.tensor_split);
        },
        "an array of non-negative numbers, one per GPU, not all zero"}},
      {"flm",
       {[](const OptionValue& v, ModelSettings& m) {
          const std::string* tag = std::get_if<std::string>(&v);
          if (tag == nullptr || !ValidFlmTag(*tag)) return false;
          m.flm = *tag;
          return true;
        },
        [](const ModelSettings& m) -> std::optional<OptionValue> {
          if (m.flm.empty()) return std::nullopt;
          return OptionValue(m.flm);
        },
        "a FastFlowLM model tag such as \"llama3.2:1b\""}},
      {"draft", Text(&ModelSettings::draft, {}, "a model name")},
      {"speculative", Text(&ModelSettings::speculative, {"auto", "off", "ngram", "draft", "mtp"},
                           "auto, off, ngram, draft or mtp")},
      {"draft_max", Int(&ModelSettings::draft_max, 1, 1024, "1 to 1024 tokens")},
      {"draft_min", Int(&ModelSettings::draft_min, 0, 1024, "0 to 1024 tokens")},
      {"extra_args",
       {[](const OptionValue& v, ModelSettings& m) {
          const auto* args = std::get_if<std::vector<std::string>>(&v);
          if (args != nullptr) m.extra_args = *args;
          return args != nullptr;
        },
        [](const ModelSettings& m) -> std::optional<OptionValue> {
          if (m.extra_args.empty()) return std::nullopt;
          return OptionValue(m.extra_args);
        },
        "an array of strings"}},
  };
  return kOptions;
}

}  // namespace

std::optional<OptionValue> ArrayOptionValue(std::vector<std::string> strings,
                                            std::vector<double> numbers) {
  if (!strings.empty() && !numbers.empty()) return std::nullopt;
  if (!numbers.empty()) return OptionValue(std::move(numbers));
  return OptionValue(std::move(strings));
}

bool ValidFlmTag(std::string_view tag) {
  // Starts with a letter or digit, so it can never read as a flag.
  return !tag.empty() && tag.size() <= 64 && std::isalnum(static_cast<unsigned char>(tag[0])) &&
         std::all_of(tag.begin(), tag.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' ||
                  c == '-';
         });
}

Status SetModelOption(ModelSettings& settings, std::string_view key, const OptionValue& value) {
  auto it = Options().find(key);
  if (it == Options().end()) return InvalidArgument("unknown option '" + std::string(key) + "'");
  if (!it->second.set(value, settings)) {
    return InvalidArgument(std::string("expected ") + it->second.expected);
  }
  return Status::Ok();
}

std::vector<std::pair<std::string, OptionValue>> SetModelOptions(const ModelSettings& settings) {
  std::vector<std::pair<std::string, OptionValue>> out;
  for (const auto& [name, option] : Options()) {
    if (auto value = option.get(settings)) out.emplace_back(name, std::move(*value));
  }
  return out;
}

}  // namespace zest::config
