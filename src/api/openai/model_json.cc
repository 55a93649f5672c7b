#include "api/openai/model_json.h"

namespace zest::api::openai {

nlohmann::json ModelJson(const models::ModelEntry& model, bool loaded) {
  nlohmann::json j = {
      {"id", model.name},           {"object", "model"},
      {"created", model.created},   {"owned_by", "zest"},
      {"path", model.path.string()}, {"source", model.source},
      {"loaded", loaded},
  };
  if (!model.error.empty()) {
    j["error"] = model.error;
    return j;
  }
  const models::ModelInfo& info = model.info;
  j["architecture"] = info.architecture;
  j["context_length"] = info.context_length;
  j["size"] = info.file_size;
  j["parameters"] = info.parameter_count;
  j["quantization"] = info.file_type;
  j["type"] = info.embedding ? "embedding" : "llm";
  if (info.synthetic) j["synthetic"] = true;
  return j;
}

}  // namespace zest::api::openai
