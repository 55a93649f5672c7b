#include "api/ollama/ollama_embed.h"

#include "api/request/request_fields.h"

namespace zest::api::ollama {

using nlohmann::json;

Result<EmbedRequest> ParseEmbedRequest(const json& body, bool legacy) {
  EmbedRequest out;
  out.legacy = legacy;
  const json model = body.value("model", json());
  if (!model.is_string() || model.get<std::string>().empty()) {
    return InvalidArgument("model is required");
  }
  out.model = model.get<std::string>();
  const char* field = legacy ? "prompt" : "input";
  const json input = body.value(field, json());
  if (input.is_string()) {
    out.inputs.push_back(input.get<std::string>());
  } else if (input.is_array() && !legacy) {
    for (const json& item : input) {
      if (!item.is_string()) return InvalidArgument("input must be a string or strings");
      out.inputs.push_back(item.get<std::string>());
    }
  } else if (!input.is_null()) {
    return InvalidArgument(std::string(field) + " must be a string" +
                           (legacy ? "" : " or strings"));
  }
  if (auto d = body.find("dimensions"); d != body.end() && !d->is_null()) {
    if (!d->is_number_integer() || *d < 1) {
      return InvalidArgument("dimensions must be a positive integer");
    }
    out.dimensions = d->get<int>();
  }
  if (auto keep = body.find("keep_alive"); keep != body.end() && !keep->is_null()) {
    ZEST_ASSIGN_OR_RETURN(out.keep_alive, api::ParseKeepAliveField(*keep));
  }
  if (auto p = body.find("priority"); p != body.end() && p->is_string()) {
    out.priority = p->get<std::string>();
  }
  return out;
}

engines::ChatRequest EmbedChatRequest(const EmbedRequest& request) {
  engines::ChatRequest out;
  out.kind = engines::Capability::kEmbeddings;
  out.model = request.model;
  out.keep_alive = request.keep_alive;
  out.priority = request.priority;
  out.input = request.inputs;
  out.extra = {{"encoding_format", "float"}};
  if (request.dimensions) out.extra["dimensions"] = *request.dimensions;
  return out;
}

Result<json> OllamaEmbedAnswer(const EmbedRequest& request, std::string_view engine_body,
                               int64_t total_ns) {
  const json answer = json::parse(engine_body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.contains("data") || !answer["data"].is_array()) {
    return EngineFailed("the engine's embeddings answer is not OpenAI's shape");
  }
  std::vector<json> embeddings(answer["data"].size());
  for (const json& item : answer["data"]) {
    const json at = item.value("index", json(0));
    const std::size_t index = at.is_number_unsigned() ? at.get<std::size_t>() : embeddings.size();
    if (!item.contains("embedding") || !item["embedding"].is_array() ||
        index >= embeddings.size()) {
      return EngineFailed("the engine's embeddings answer is not OpenAI's shape");
    }
    embeddings[index] = item["embedding"];
  }
  if (request.legacy) {
    return json{{"embedding", embeddings.empty() ? json::array() : embeddings.front()}};
  }
  uint64_t prompt_tokens = 0;
  if (auto usage = answer.find("usage"); usage != answer.end() && usage->is_object()) {
    const json tokens = usage->value("prompt_tokens", json());
    if (tokens.is_number_unsigned()) prompt_tokens = tokens.get<uint64_t>();
  }
  return json{{"model", request.model},
              {"embeddings", embeddings},
              {"total_duration", total_ns},
              {"prompt_eval_count", prompt_tokens}};
}

}  // namespace zest::api::ollama
