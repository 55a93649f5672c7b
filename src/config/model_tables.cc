#include "config/model_tables.h"

#include <optional>

namespace zest::config {
namespace {

// The value as SetModelOption takes it; nullopt for kinds no option has
// (tables, dates, arrays mixing strings and numbers).
std::optional<OptionValue> ToOptionValue(const toml::node& n) {
  if (auto b = n.value_exact<bool>()) return OptionValue(*b);
  if (auto i = n.value_exact<int64_t>()) return OptionValue(*i);
  if (auto d = n.value_exact<double>()) return OptionValue(*d);
  if (auto s = n.value_exact<std::string>()) return OptionValue(*s);
  if (const toml::array* a = n.as_array()) {
    std::vector<std::string> strings;
    std::vector<double> numbers;  // TOML keeps 1 and 1.0 apart; a weight is either
    for (const toml::node& item : *a) {
      if (auto s = item.value_exact<std::string>()) {
        strings.push_back(*s);
      } else if (item.is_number()) {
        numbers.push_back(*item.value<double>());
      } else {
        return std::nullopt;
      }
    }
    return ArrayOptionValue(std::move(strings), std::move(numbers));
  }
  return std::nullopt;
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
      const std::string option(key.str());
      // No option takes a float: it stands for "another kind", so an
      // unknown key and a wrong value still get their own messages.
      const OptionValue v = ToOptionValue(value).value_or(OptionValue(0.5));
      Status set = SetModelOption(settings, option, v);
      if (set.ok()) continue;
      if (set.message().starts_with("unknown option")) {
        return InvalidArgument("models.\"" + model + "\": unknown key '" + option + "' in " + file);
      }
      return InvalidArgument("models.\"" + model + "\"." + option + ": " + set.message() + " in " +
                             file);
    }
    out[model] = std::move(settings);
  }
  return Status::Ok();
}

}  // namespace zest::config
