#include "api/model_file_json.h"

#include "models/gguf_reader.h"
#include "models/safetensors_file.h"
#include "models/whisper_file.h"

namespace zest::api {

using nlohmann::json;

namespace {

// Arrays longer than this are shown as their length and element type
// (vocabularies have 100k+ entries).
constexpr uint64_t kMaxShownArray = 16;

json GgufValueJson(const models::GgufValue& v) {
  if (v.type == models::kGgufArray) {
    const auto* strings = std::get_if<std::vector<std::string>>(&v.value);
    if (strings && v.array_size <= kMaxShownArray) return *strings;
    return {{"array_length", v.array_size}, {"element_type", v.element_type}};
  }
  return std::visit([](const auto& x) { return json(x); }, v.value);
}

}  // namespace

Result<json> ModelFileJson(const models::ModelEntry& model) {
  json out = {{"metadata", json::object()}};
  if (model.info.speech) {
    ZEST_ASSIGN_OR_RETURN(models::WhisperFile file, models::ReadWhisperFile(model.path));
    const models::WhisperHparams& h = file.hparams;
    out["format"] = "ggml";
    out["tensor_count"] = file.tensors.size();
    out["metadata"] = {{"n_vocab", h.n_vocab},
                       {"n_audio_ctx", h.n_audio_ctx},
                       {"n_audio_state", h.n_audio_state},
                       {"n_audio_layer", h.n_audio_layer},
                       {"n_text_ctx", h.n_text_ctx},
                       {"n_text_state", h.n_text_state},
                       {"n_text_layer", h.n_text_layer},
                       {"n_mels", h.n_mels},
                       {"ftype", h.ftype},
                       {"multilingual", IsMultilingual(h)}};
    return out;
  }
  if (model.info.image) {
    ZEST_ASSIGN_OR_RETURN(models::SafetensorsFile file, models::ReadSafetensorsFile(model.path));
    out["format"] = "safetensors";
    out["tensor_count"] = file.tensors.size();
    for (const auto& [key, value] : file.metadata) out["metadata"][key] = value;
    return out;
  }
  ZEST_ASSIGN_OR_RETURN(models::GgufFile gguf, models::ReadGguf(model.path));
  out["format"] = "gguf";
  out["gguf_version"] = gguf.version;
  out["tensor_count"] = gguf.tensors.size();
  for (const auto& [key, value] : gguf.metadata) out["metadata"][key] = GgufValueJson(value);
  return out;
}

}  // namespace zest::api
