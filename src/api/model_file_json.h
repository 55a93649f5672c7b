// What a model's file says of itself, for `zest show` and Ollama's
// /api/show: its format, tensor count and metadata, read in whichever
// format it is (GGUF for language models, whisper.cpp's ggml for speech,
// safetensors for image models).
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "models/model_registry.h"

namespace zest::api {

// {"format": "gguf" | "ggml" | "safetensors", "tensor_count", "metadata"
// (GGUF keys, arrays over 16 entries as their length and element type; a
// speech model's hyperparameters; a safetensors file's __metadata__), and
// for GGUF "gguf_version"}. The reader's error when the file is unreadable.
Result<nlohmann::json> ModelFileJson(const models::ModelEntry& model);

}  // namespace zest::api
