#include "config/model_tables.h"

#include <functional>

namespace zest::config {
namespace {

using Setter = std::function<bool(const toml::node&, ModelSettings&)>;

template <typename T, typename Member>
Setter Int(Member member, int64_t min, int64_t max) {
  return [=](const toml::node& n, ModelSettings& m) {
    auto v = n.value<int64_t>();
    if (!v || *v < min || *v > max) return false;
    m.*member = static_cast<T>(*v);
    return true;
  };
}

bool SetKvType(const toml::node& n, ModelSettings& m) {
  auto v = n.value<std::string>();
  if (!v || (*v != "f16" && *v != "q8_0" && *v != "q4_0")) return false;
  m.kv_type = *v;
  return true;
}

bool SetExtraArgs(const toml::node& n, ModelSettings& m) {
  const toml::array* a = n.as_array();
  if (a == nullptr) return false;
  m.extra_args.clear();
  for (const toml::node& item : *a) {
    auto s = item.value<std::string>();
    if (!s) return false;
    m.extra_args.push_back(*s);
  }
  return true;
}

const std::map<std::string, std::pair<Setter, const char*>>& Keys() {
  static const std::map<std::string, std::pair<Setter, const char*>> kKeys = {
      {"device", {[](const toml::node& n, ModelSettings& m) {
                    auto v = n.value<std::string>();
                    if (v) m.device = *v;
                    return v.has_value();
                  }, "a device name"}},
      {"n_gpu_layers", {Int<int>(&ModelSettings::n_gpu_layers, 0, 100000), "a layer count"}},
      {"ctx_size", {Int<uint64_t>(&ModelSettings::ctx_size, 1, 1 << 24), "a context length"}},
      {"parallel", {Int<int>(&ModelSettings::parallel, 1, 256), "1 to 256"}},
      {"kv_type", {SetKvType, "f16, q8_0 or q4_0"}},
      {"flash_attention", {[](const toml::node& n, ModelSettings& m) {
                             auto v = n.value<bool>();
                             if (v) m.flash_attention = *v;
                             return v.has_value();
                           }, "true or false"}},
      {"no_mmap", {[](const toml::node& n, ModelSettings& m) {
                     auto v = n.value<bool>();
                     if (v) m.no_mmap = *v;
                     return v.has_value();
                   }, "true or false"}},
      {"mlock", {[](const toml::node& n, ModelSettings& m) {
                   auto v = n.value<bool>();
                   if (v) m.mlock = *v;
                   return v.has_value();
                 }, "true or false"}},
      {"batch", {Int<uint32_t>(&ModelSettings::batch, 1, 1 << 20), "a token count"}},
      {"ubatch", {Int<uint32_t>(&ModelSettings::ubatch, 1, 1 << 20), "a token count"}},
      {"n_cpu_moe", {Int<int>(&ModelSettings::n_cpu_moe, 0, 100000), "a layer count"}},
      {"extra_args", {SetExtraArgs, "an array of strings"}},
  };
  return kKeys;
}

}  // namespace

Status ParseModelTables(const toml::table& models, const std::string& file,
                        std::map<std::string, ModelSettings>& out) {
  for (const auto& [name, node] : models) {
    const toml::table* table = node.as_table();
    if (table == nullptr) continue;  // models.dir and other plain settings
    const std::string model(name.str());
    ModelSettings settings;
    for (const auto& [key, value] : *table) {
      auto it = Keys().find(std::string(key.str()));
      if (it == Keys().end()) {
        return InvalidArgument("models.\"" + model + "\": unknown key '" + std::string(key.str()) +
                               "' in " + file);
      }
      if (!it->second.first(value, settings)) {
        return InvalidArgument("models.\"" + model + "\"." + it->first + ": expected " +
                               it->second.second + " in " + file);
      }
    }
    out[model] = std::move(settings);
  }
  return Status::Ok();
}

}  // namespace zest::config
