#include "api/model_preset.h"

#include "api/request/messages_json.h"
#include "api/request/sampling_fields.h"
#include "models/preset_load_options.h"

namespace zest::api {

using engines::Message;

namespace {

// The preset's system prompt and messages around the request's own: a
// system message first (the request's, else the preset's), then the
// preset's messages, then the rest of the request's.
void AddPresetMessages(const models::ModelPreset& preset, std::vector<Message>& messages) {
  std::vector<Message> out;
  const bool has_system = !messages.empty() && messages[0].role == "system";
  if (!preset.system.empty() && !has_system) out.push_back(Message::Text("system", preset.system));
  auto next = messages.begin();
  if (has_system) out.push_back(std::move(*next++));
  if (preset.messages.is_array()) {
    Result<std::vector<Message>> own = MessagesFromJson(preset.messages);
    if (own.ok()) std::move(own->begin(), own->end(), std::back_inserter(out));
  }
  std::move(next, messages.end(), std::back_inserter(out));
  messages = std::move(out);
}

}  // namespace

void ApplyPreset(models::ModelEntry& model, engines::ChatRequest& request) {
  if (!model.preset) return;
  const models::ModelPreset preset = *model.preset;
  // One that drafts differently (models/preset_load_options.h) keeps its
  // name and preset: the pool loads it on an engine of its own.
  if (!models::HasLoadOptions(preset)) {
    model.preset.reset();
    model.name = preset.from;
  }
  if (request.kind == engines::Capability::kEmbeddings) return;
  // Its options as Ollama's chat reads them (checked when the preset was
  // made), where the request sets none.
  engines::Sampling defaults;
  std::optional<int64_t> max_tokens;
  if (ReadOllamaOptions(preset.parameters, defaults, max_tokens).ok()) {
    FillSampling(request.sampling, defaults);
    if (!request.max_tokens) request.max_tokens = max_tokens;
  }
  if (request.kind == engines::Capability::kChat) AddPresetMessages(preset, request.messages);
}

}  // namespace zest::api
