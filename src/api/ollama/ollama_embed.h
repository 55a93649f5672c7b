// Ollama's embedding requests as the typed request and back, so that they
// run on the engine's embeddings route through zest's relay, which has the
// instance's adapter write the engine's body (EngineAdapter::ChatCall, with
// the model's name as that engine knows it): POST /api/embed
// ({model, input: a string or strings, truncate, options, keep_alive,
// dimensions} → {model, embeddings, total_duration, prompt_eval_count}) and
// the older POST /api/embeddings ({model, prompt} → {embedding}). Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/duration.h"
#include "core/result.h"
#include "engines/chat_request.h"

namespace zest::api::ollama {

struct EmbedRequest {
  std::string model;  // as the client sent it (`name:tag`)
  std::vector<std::string> inputs;
  bool legacy = false;  // /api/embeddings: one prompt, one `embedding`
  std::optional<int> dimensions;
  std::optional<Duration> keep_alive;
  std::string priority;  // the body's `priority` (zest's), or ""
};

// kInvalidArgument naming the bad field: a missing model, an input that is
// not a string or strings (an empty list is allowed: no embeddings), bad
// keep_alive or dimensions.
Result<EmbedRequest> ParseEmbedRequest(const nlohmann::json& body, bool legacy);

// The typed embedding request (kind kEmbeddings: the inputs, a float
// encoding and the dimensions asked for) that the engine is asked.
engines::ChatRequest EmbedChatRequest(const EmbedRequest& request);

// The engine's answer (OpenAI's {data: [{embedding, index}], usage}) in
// Ollama's shape, with `total_ns` as total_duration. kEngineFailed when it
// is not such an answer.
Result<nlohmann::json> OllamaEmbedAnswer(const EmbedRequest& request, std::string_view engine_body,
                                         int64_t total_ns);

}  // namespace zest::api::ollama
