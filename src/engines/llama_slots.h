// llama-server's slot protocol: GET /slots lists the engine's slots (a JSON
// array: id, is_processing, id_task once it served one, n_prompt_tokens,
// and each slot's params), POST /slots/{id}?action=save|restore with
// {"filename": ...} saves a slot's KV cache into the engine's
// --slot-save-path or restores it; and a request replayed to fill a slot.
// What the scheduler's slot cache and session tier (scheduler/slot_cache.h,
// session_tier.h) ask of an engine that saves slots
// (EngineAdapter::saves_slots), read and written here only. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/transcription.h"  // EngineCall

namespace zest::engines {

// The path that lists the slots.
inline constexpr std::string_view kSlotsPath = "/slots";

// One slot as /slots lists it; what the engine left out, or sent as
// another type, is unset.
struct EngineSlot {
  int id = -1;                     // -1 when not given
  std::optional<bool> processing;  // is_processing
  std::optional<int> task;         // id_task: the last task it served
  int prompt_tokens = 0;           // n_prompt_tokens
};

// The slots of a /slots answer, those that are not objects left out;
// kEngineFailed when it is not a list.
Result<std::vector<EngineSlot>> ReadSlots(std::string_view body);

enum class SlotAction { kSave, kRestore };

// The request that saves slot `id` as `filename` in the engine's
// --slot-save-path, or restores it from there.
EngineCall SlotActionCall(int id, SlotAction action, const std::string& filename);

// A request the engine was sent (`body`, as its adapter wrote it) with
// nothing to generate, answered whole, one sequence, its cached prompt
// reused: llama-server still evaluates the whole prompt into a slot (and
// samples one token), which refills a slot with a conversation
// (scheduler/session_tier.h). kInvalidArgument when `body` is not a JSON
// object.
Result<std::string> ReplayBody(const std::string& body);

}  // namespace zest::engines
