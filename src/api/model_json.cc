#include "api/model_json.h"

#include <algorithm>
#include <filesystem>

#include "models/capabilities.h"

namespace zest::api {

nlohmann::json ModelJson(const models::ModelEntry& model, bool loaded) {
  nlohmann::json j = {
      {"id", model.name},   {"object", "model"},           {"created", model.created},
      {"owned_by", "zest"}, {"path", model.path.string()}, {"source", model.source},
      {"loaded", loaded},
  };
  if (!model.repo.empty()) j["repo"] = model.repo;
  if (!model.mmproj.empty()) j["mmproj"] = model.mmproj.string();
  if (!model.vocoder.empty()) j["vocoder"] = model.vocoder.string();
  if (!model.catalog.empty()) j["catalog"] = model.catalog;
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
  j["type"] = info.speech      ? "speech"
              : info.tts       ? "tts"
              : info.image     ? "image"
              : info.reranker  ? "reranker"
              : info.embedding ? "embedding"
                               : "llm";
  if (info.synthetic) j["synthetic"] = true;
  j["capabilities"] = models::Capabilities(model);
  const models::ProjectorInfo& p = model.projector;
  if (p.has_vision || p.has_audio) {
    nlohmann::json projector = {{"name", p.name},
                                {"vision", p.has_vision},
                                {"audio", p.has_audio},
                                {"embedding_length", p.embedding_length},
                                {"size", p.tensor_bytes}};
    if (p.has_vision) {
      projector["type"] = p.vision_projector_type;
      projector["image_size"] = p.image_size;
      projector["patch_size"] = p.patch_size;
    }
    if (p.has_audio) projector["audio_type"] = p.audio_projector_type;
    j["projector"] = std::move(projector);
  }
  return j;
}

void WithoutHostPaths(nlohmann::json& model) {
  for (const char* key : {"path", "mmproj", "vocoder"}) {
    auto it = model.find(key);
    if (it != model.end() && it->is_string()) {
      *it = std::filesystem::path(it->get<std::string>()).filename().string();
    }
  }
  if (model.contains("error"))
    model["error"] = "the model's files cannot be used (an admin key sees why)";
}

nlohmann::json CatalogJson(const models::CatalogStatus& status) {
  const models::CatalogEntry& e = status.entry;
  nlohmann::json j = {
      {"id", e.name},        {"object", "model"},    {"owned_by", "zest"},
      {"source", "catalog"}, {"repo", e.repo},       {"labels", e.labels},
      {"recipe", e.recipe},  {"size", e.size_bytes}, {"downloaded", status.downloaded},
      {"loaded", false}};
  if (!e.quant.empty()) j["quantization"] = e.quant;
  if (!e.file.empty()) j["file"] = e.file;
  if (!e.mmproj.empty()) j["mmproj"] = e.mmproj;
  if (!e.flm.empty()) j["flm"] = e.flm;  // its NPU build (FastFlowLM tag)
  if (e.suggested_ctx > 0) j["suggested_ctx"] = e.suggested_ctx;
  if (!e.description.empty()) j["description"] = e.description;
  if (!status.model.empty()) j["model"] = status.model;
  return j;
}

void AddFit(nlohmann::json& model, const std::optional<placement::ModelFit>& fit) {
  if (!fit) return;
  model["fit"] = {{"verdict", fit->verdict},
                  {"needed_bytes", fit->needed_bytes},
                  {"available_bytes", fit->available_bytes},
                  {"reason", fit->reason}};
}

void AddContext(nlohmann::json& model, uint64_t context, int max_tokens_cap) {
  if (context == 0) return;
  model["context_window"] = context;
  model["max_model_len"] = context;
  model["max_output_tokens"] = std::min<uint64_t>(context, std::max(max_tokens_cap, 0));
}

}  // namespace zest::api
