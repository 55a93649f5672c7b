// Requests for a preset (a model made from another with Ollama's
// /api/create: models::ModelPreset) run on the base model's engine with the
// preset's defaults: its system prompt when the request has no system
// message, its messages before the request's, its options where the request
// sets none. Every API applies it the same way, to the request in OpenAI's
// shape (chat_route.h, the OpenAI route).
#pragma once

#include <nlohmann/json.hpp>

#include "models/model_registry.h"

namespace zest::api {

// Applies `model`'s preset, if it has one, to `body` (an OpenAI chat or
// completion request) and makes `model` the base model it runs on (its
// name; the file and details are the base's already).
void ApplyPreset(models::ModelEntry& model, nlohmann::json& body);

}  // namespace zest::api
