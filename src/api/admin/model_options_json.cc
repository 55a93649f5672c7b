#include "api/admin/model_options_json.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace zest::api::admin {
namespace {

using nlohmann::json;

// The value as SetModelOption takes it; nullopt for kinds no option has.
std::optional<config::OptionValue> ToOptionValue(const json& v) {
  if (v.is_boolean()) return config::OptionValue(v.get<bool>());
  if (v.is_number_integer()) return config::OptionValue(v.get<int64_t>());
  if (v.is_number_float()) return config::OptionValue(v.get<double>());
  if (v.is_string()) return config::OptionValue(v.get<std::string>());
  if (v.is_array()) {
    std::vector<std::string> strings;
    std::vector<double> numbers;
    for (const json& item : v) {
      if (item.is_string()) {
        strings.push_back(item.get<std::string>());
      } else if (item.is_number()) {
        numbers.push_back(item.get<double>());
      } else {
        return std::nullopt;
      }
    }
    return config::ArrayOptionValue(std::move(strings), std::move(numbers));
  }
  return std::nullopt;
}

}  // namespace

Status ApplyModelOptions(const json& options, config::ModelSettings& settings,
                         std::string* bad_option) {
  if (!options.is_object()) {
    if (bad_option != nullptr) *bad_option = "options";
    return InvalidArgument("'options' must be an object of per-model engine options");
  }
  config::ModelSettings updated = settings;
  for (const auto& [key, value] : options.items()) {
    // No option takes a float, so it stands in for "a kind no option takes".
    const config::OptionValue v = ToOptionValue(value).value_or(config::OptionValue(0.5));
    Status set = config::SetModelOption(updated, key, v);
    if (set.ok()) continue;
    if (bad_option != nullptr) *bad_option = "options." + key;
    return InvalidArgument("options." + key + ": " + set.message());
  }
  settings = std::move(updated);
  return Status::Ok();
}

json ModelOptionsJson(const config::ModelSettings& settings) {
  json out = json::object();
  for (const auto& option : config::SetModelOptions(settings)) {
    const std::string& name = option.first;
    std::visit([&out, &name](const auto& v) { out[name] = v; }, option.second);
  }
  return out;
}

}  // namespace zest::api::admin
