#include "engines/llama_slots.h"

#include <nlohmann/json.hpp>

namespace zest::engines {

using nlohmann::json;

namespace {

// `object[key]` when it is a number (a bool), else unset: an engine's odd
// field reads as absent, never as an exception.
std::optional<int> IntField(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<int>();
}
std::optional<bool> BoolField(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

}  // namespace

Result<std::vector<EngineSlot>> ReadSlots(std::string_view body) {
  const json slots = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!slots.is_array()) return EngineFailed("the engine's /slots is not a list");
  std::vector<EngineSlot> out;
  for (const json& slot : slots) {
    if (!slot.is_object()) continue;
    EngineSlot read;
    read.id = IntField(slot, "id").value_or(-1);
    read.processing = BoolField(slot, "is_processing");
    read.task = IntField(slot, "id_task");
    read.prompt_tokens = IntField(slot, "n_prompt_tokens").value_or(0);
    out.push_back(read);
  }
  return out;
}

EngineCall SlotActionCall(int id, SlotAction action, const std::string& filename) {
  const char* name = action == SlotAction::kSave ? "save" : "restore";
  return EngineCall{"/slots/" + std::to_string(id) + "?action=" + name, "application/json",
                    json({{"filename", filename}}).dump()};
}

Result<std::string> ReplayBody(const std::string& body) {
  json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) return InvalidArgument("the remembered request is not a JSON object");
  request["max_tokens"] = 0;
  request["n_predict"] = 0;
  request["stream"] = false;
  request.erase("stream_options");
  request.erase("n");  // one sequence, one slot
  // What the slot holds is reused whoever filled it: the replay's answer
  // reaches no client (the slots are no key's after: SaveSessions).
  request["cache_prompt"] = true;
  return request.dump();
}

}  // namespace zest::engines
