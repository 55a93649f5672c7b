// The per-model load options a preset (a model made from another with
// Ollama's /api/create, models::ModelPreset) may carry among its
// parameters: speculative decoding's `draft`, `speculative`, `draft_max` and
// `draft_min` (a Modelfile's `PARAMETER draft qwen3:0.6b`). A preset that
// sets any of them runs on an engine of its own (its name, its base's
// file), loaded with them over its base's configured options; one without
// runs on its base's engine (api/model_preset.h). Pure; any thread.
#pragma once

#include <nlohmann/json.hpp>

#include "config/model_settings.h"
#include "core/result.h"
#include "models/model_registry.h"

namespace zest::models {

// Whether `preset`'s parameters set a load option.
bool HasLoadOptions(const ModelPreset& preset);

// `base` with the load options `parameters` (an Ollama options object)
// sets. kInvalidArgument "parameters.draft_max: expected ..." for a value
// the option does not take; pairing a draft is checked when it loads.
Result<config::ModelSettings> WithLoadOptions(const nlohmann::json& parameters,
                                              config::ModelSettings base);

}  // namespace zest::models
