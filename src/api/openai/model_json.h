// The JSON shape of a model in /v1/models: OpenAI's fields (id, object,
// created, owned_by) plus what zest knows from the GGUF header.
#pragma once

#include <nlohmann/json.hpp>

#include "models/model_registry.h"

namespace zest::api::openai {

nlohmann::json ModelJson(const models::ModelEntry& model, bool loaded);

// A catalog entry in `GET /api/v1/models?all=true`: id (the catalog name),
// repo, quant or file, labels, recipe, size, downloaded.
nlohmann::json CatalogJson(const models::CatalogStatus& status);

}  // namespace zest::api::openai
