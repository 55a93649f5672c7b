// Requests for a preset (a model made from another with Ollama's
// /api/create: models::ModelPreset) run on the base model's engine with the
// preset's defaults: its system prompt when the request has no system
// message, its messages before the request's, its options where the request
// sets none. Every API applies it the same way, to the typed request
// (chat_route.h).
#pragma once

#include "engines/chat_request.h"
#include "models/model_registry.h"

namespace zest::api {

// Applies `model`'s preset, if it has one, to `request` and makes `model`
// the base model it runs on (its name; the file and details are the base's
// already), unless the preset sets load options of its own
// (models/preset_load_options.h): then `model` stays the preset, loaded on
// its own engine. A preset's parts that do not read (a hand-edited file) are
// left out: they were checked when it was made.
void ApplyPreset(models::ModelEntry& model, engines::ChatRequest& request);

}  // namespace zest::api
