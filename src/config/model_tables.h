// Parsing of the [models."name"] tables of config.toml into ModelSettings.
// Internal to config/ (the only header here that names toml++ types).
#pragma once

#include <toml++/toml.h>

#include <map>
#include <string>

#include "config/model_settings.h"
#include "core/result.h"

namespace zest::config {

// Every sub-table of `models` (its plain keys, like `dir`, are other
// settings). kInvalidArgument naming the model, key and file on a bad value
// or an unknown key.
Status ParseModelTables(const toml::table& models, const std::string& file,
                        std::map<std::string, ModelSettings>& out);

}  // namespace zest::config
