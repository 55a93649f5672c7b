// What a model can do, in the words clients look for: Ollama's
// `capabilities` ("completion", "tools", "vision", "thinking",
// "embedding"), which zest also lists in /v1/models.
#pragma once

#include <string>
#include <vector>

#include "models/model_registry.h"

namespace zest::models {

// "completion" for chat models, with "vision" when it has a projector and
// "tools" and "thinking" when its chat template handles them; "embedding"
// for embedding models (rerankers included); nothing for speech and image
// models, which have no chat.
std::vector<std::string> Capabilities(const ModelEntry& model);

}  // namespace zest::models
