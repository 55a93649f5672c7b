// Ollama's POST /api/create, where it maps onto zest:
//   - `from` a model here, with `system`, `parameters` and `messages` (a
//     Modelfile's FROM, SYSTEM, PARAMETER, MESSAGE): a preset
//     (models::ModelPreset; api/model_preset.h applies it), served by the
//     base model's engine. Made from a preset, it layers on that preset.
//   - `from` the path of a GGUF file on this machine: the file registered
//     under the new name, as `zest add` does.
// What does not map is kUnsupported, which the route answers with 501:
// uploaded files (`files`, `adapters`: Ollama's blob store), `quantize`,
// and `template` (Ollama's Go templates; llama-server runs the GGUF's
// Jinja template).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "models/model_registry.h"

namespace zest::api::ollama {

// NOLINTNEXTLINE(bugprone-exception-escape): json members; moving them does not throw
struct CreateRequest {
  std::string name;                           // zest's name for the new model
  std::optional<std::filesystem::path> file;  // `from` a GGUF path
  models::ModelPreset preset;                 // else: `from` a model's name, and what it adds
  bool stream = true;
};

// kInvalidArgument for a malformed request, kUnsupported (naming the field
// and what to do instead) for what zest cannot create.
Result<CreateRequest> ParseCreateRequest(const nlohmann::json& body);

// `top` made from `base` (itself a preset): from base's model, top's system
// prompt if it has one, both's parameters (top's win), base's messages first.
models::ModelPreset Layered(const models::ModelPreset& base, models::ModelPreset top);

}  // namespace zest::api::ollama
