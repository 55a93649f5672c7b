// Sampling read into the typed request (engines/chat_request.h), in the
// two vocabularies zest's requests use: llama-server's names at the top of
// an OpenAI request (OpenAI's are a subset), and Ollama's `options`, which
// is also how a preset keeps its defaults (models::ModelPreset::parameters,
// made by Ollama's /api/create; applied on every API: model_preset.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api {

// Takes the samplers out of `object` (a request body) into `sampling`:
// numbers; top_k, seed, repeat_last_n, mirostat and n_keep integers; stop a
// string or a list of strings. Null is the same as absent. kInvalidArgument
// naming the field, whose name goes to `*param`.
Status TakeSampling(nlohmann::json& object, engines::Sampling& sampling, std::string* param);

// Ollama's `options` into `sampling` and `max_tokens`: the samplers by
// Ollama's names (num_keep is n_keep), num_predict as the answer's limit
// (negative, "endless" or "fill the context", leaves it unset: zest's
// default applies), stop. What Ollama applies when it loads a model
// (num_ctx, num_gpu, ...) is zest's per-model load options, accepted and
// not applied here, as Ollama ignores options it does not know.
// kInvalidArgument "options.KEY must be ...".
Status ReadOllamaOptions(const nlohmann::json& options, engines::Sampling& sampling,
                         std::optional<int64_t>& max_tokens);

// `defaults` into `sampling` where it has no value of its own.
void FillSampling(engines::Sampling& sampling, const engines::Sampling& defaults);

}  // namespace zest::api
