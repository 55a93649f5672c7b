// The JSON shape of a model in /v1/models: OpenAI's fields (id, object,
// created, owned_by) plus what zest knows from the GGUF header; zest's own
// model routes show the same as a model's details.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "models/model_registry.h"
#include "placement/fit.h"

namespace zest::api {

nlohmann::json ModelJson(const models::ModelEntry& model, bool loaded);

// `model` (a ModelJson) as an inference key sees it: its files by name,
// not by their path on the host (which names the user and zest's home),
// and an unreadable file's error without the path in it.
void WithoutHostPaths(nlohmann::json& model);

// A catalog entry in `GET /api/v1/models?all=true`: id (the catalog name),
// repo, quant or file, labels, recipe, size, downloaded.
nlohmann::json CatalogJson(const models::CatalogStatus& status);

// Whether this machine can run the model (placement/fit.h), as the `fit`
// field: {"verdict","needed_bytes","available_bytes","reason"}. Nothing is
// added while the devices are not known yet.
void AddFit(nlohmann::json& model, const std::optional<placement::ModelFit>& fit);

// What a client sizes its requests by (coding agents ask for it): the
// tokens one request may use, prompt and answer together, as
// `context_window` and as vLLM names it, `max_model_len`: `context`, the
// context per sequence of its running engine, or of the plan it would get
// now; and `max_output_tokens`, the longest answer a request may ask for
// (`max_tokens_cap`, within that context). Nothing when `context` is 0.
void AddContext(nlohmann::json& model, uint64_t context, int max_tokens_cap);

}  // namespace zest::api
