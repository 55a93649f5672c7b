// Per-model engine options (config::ModelSettings) as JSON: the "options"
// object of `POST /api/v1/load`, and the options in effect that
// /api/v1/ps and /api/v1/health show per instance. The names and checks are
// config's (SetModelOption), the same as `[models."name"]` in config.toml.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "config/model_settings.h"
#include "core/result.h"

namespace zest::api::admin {

// Applies each member of `options` (a JSON object) to `settings`, over what
// it already holds. kInvalidArgument naming the option ("options.ctx_size:
// expected a context length"); `*bad_option` (when given) is set to the
// field's path for the error's `param`.
Status ApplyModelOptions(const nlohmann::json& options, config::ModelSettings& settings,
                         std::string* bad_option);

// The options `settings` sets, as a JSON object (unset ones left out).
nlohmann::json ModelOptionsJson(const config::ModelSettings& settings);

}  // namespace zest::api::admin
