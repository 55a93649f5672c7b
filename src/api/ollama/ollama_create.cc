#include "api/ollama/ollama_create.h"

#include "api/json_body.h"
#include "api/ollama/ollama_chat.h"
#include "api/ollama/ollama_models.h"
#include "api/request/sampling_fields.h"
#include "engines/openai_request_json.h"
#include "models/preset_load_options.h"

namespace zest::api::ollama {

using nlohmann::json;

namespace {

bool Given(const json& body, const char* key) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return false;
  return !(it->is_string() || it->is_object() || it->is_array()) || !it->empty();
}

// A `from` that names a file rather than a model: a path.
bool LooksLikePath(const std::string& from) {
  return from.starts_with('/') || from.starts_with("./") || from.starts_with("~/") ||
         from.ends_with(".gguf");
}

}  // namespace

Result<CreateRequest> ParseCreateRequest(const json& body) {
  CreateRequest request;
  ZEST_ASSIGN_OR_RETURN(std::string name, StringMember(body, "model", "", true));
  if (name.empty()) return InvalidArgument("model is required");
  request.name = ZestName(name);
  if (Given(body, "files") || Given(body, "adapters")) {
    return Status(
        ErrorCode::kUnsupported,
        "creating a model from uploaded files is not supported: put the GGUF file in the models "
        "directory, or register it with `zest add NAME PATH`, then create from its name");
  }
  if (Given(body, "quantize")) {
    return Status(ErrorCode::kUnsupported,
                  "quantize is not supported: pull the quantization you want instead");
  }
  if (Given(body, "template")) {
    return Status(
        ErrorCode::kUnsupported,
        "template is not supported: Ollama's templates are Go templates, and llama-server runs the "
        "model's own (Jinja) chat template");
  }
  ZEST_ASSIGN_OR_RETURN(std::string from, StringMember(body, "from", "", true));
  if (from.empty()) return InvalidArgument("neither 'from' or 'files' was specified");
  if (auto stream = body.find("stream"); stream != body.end() && !stream->is_null()) {
    if (!stream->is_boolean()) return InvalidArgument("stream must be a boolean");
    request.stream = stream->get<bool>();
  }
  const bool adds = Given(body, "system") || Given(body, "parameters") || Given(body, "messages");
  if (LooksLikePath(from)) {
    if (adds) {
      return Status(
          ErrorCode::kUnsupported,
          "a GGUF path with system, parameters or messages is not supported: create a model from "
          "the path first, then one from that model with them");
    }
    request.file = std::filesystem::path(from);
    return request;
  }
  models::ModelPreset& preset = request.preset;
  preset.from = ZestName(from);
  ZEST_ASSIGN_OR_RETURN(preset.system, StringMember(body, "system", "", false));
  preset.parameters = body.value("parameters", json::object());
  if (preset.parameters.is_null()) preset.parameters = json::object();
  if (!preset.parameters.is_object()) return InvalidArgument("parameters must be an object");
  // Read when used (api/model_preset.h); checked now.
  engines::Sampling checked;
  std::optional<int64_t> max_tokens;
  ZEST_RETURN_IF_ERROR(ReadOllamaOptions(preset.parameters, checked, max_tokens));
  // Speculative decoding's load options (a Modelfile's PARAMETER draft ...):
  // their forms now, the pairing when the model loads.
  ZEST_RETURN_IF_ERROR(models::WithLoadOptions(preset.parameters, {}).status());
  // Kept in OpenAI's shape, which every API's preset requests read.
  const json messages = body.value("messages", json::array());
  ZEST_ASSIGN_OR_RETURN(std::vector<engines::Message> typed,
                        ReadMessages(messages.is_null() ? json::array() : messages));
  preset.messages = engines::OpenAiMessagesJson(typed);
  return request;
}

models::ModelPreset Layered(const models::ModelPreset& base, models::ModelPreset top) {
  top.from = base.from;
  if (top.system.empty()) top.system = base.system;
  json parameters = base.parameters.is_object() ? base.parameters : json::object();
  parameters.update(top.parameters.is_object() ? top.parameters : json::object());
  top.parameters = std::move(parameters);
  json messages = base.messages.is_array() ? base.messages : json::array();
  for (const json& m : top.messages.is_array() ? top.messages : json::array())
    messages.push_back(m);
  top.messages = std::move(messages);
  return top;
}

}  // namespace zest::api::ollama
