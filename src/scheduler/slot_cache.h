// Slot cache: an engine's conversations (its slots' KV cache) survive an
// unload. Before an idle llama-server stops, each slot that holds a prompt is
// saved (`POST /slots/{id}?action=save`) into the model's directory, which
// the engine was started with as `--slot-save-path`; after the model loads
// again, the files are restored into the same slots and deleted. llama-server
// gives a new request the slot whose cached tokens share the longest prefix
// with its prompt, so an agent's long context is not processed again after a
// model swap: only the new tail is.
//
// Both run on the caller's executor and talk to the engine over its socket.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::scheduler {

// Saves every slot that holds a prompt and is not busy; returns how many.
boost::asio::awaitable<Result<int>> SaveSlots(std::filesystem::path socket,
                                              std::filesystem::path dir);

// Restores the files SaveSlots left in `dir`, then deletes them; returns how
// many were restored. A file the engine refuses (e.g. the model changed) is
// deleted and skipped.
boost::asio::awaitable<Result<int>> RestoreSlots(std::filesystem::path socket,
                                                 std::filesystem::path dir);

// One slot at a time, for handing a prompt's KV cache from one engine to
// another (relay/prefill_handoff.h):
// The id of a slot that is not processing, or kUnavailable when all are.
boost::asio::awaitable<Result<int>> IdleSlot(std::filesystem::path socket);
// One slot as the engine's /slots lists it: what choosing among them needs.
struct SlotState {
  int id = -1;
  bool processing = true;
  int task = -1;  // the last task it served (ids grow); -1: none
  int prompt_tokens = 0;
};
enum class SlotPick {
  kNewest,         // the slot that served the latest task
  kRestoreTarget,  // one that never held a prompt, else the least recently used
};
// Among the slots not processing and not in `claimed`, the one `pick` asks
// for; nullopt when there is none. Pure.
std::optional<int> PickSlot(const std::vector<SlotState>& slots, SlotPick pick,
                            const std::set<int>& claimed = {});

// Among the slots not processing, the one a turn that ended with `tokens`
// (its prompt and answer) left its conversation in: the engine's slot
// holds all but the last token sampled, so n_prompt_tokens is tokens - 1
// (within one, for an answer that ended on a stop token); the latest such.
// nullopt when no idle slot holds it (another request took it). Pure.
std::optional<int> PickSlotHolding(const std::vector<SlotState>& slots, uint64_t tokens);

// For the session tier (session_tier.h), all among the slots not
// processing, kUnavailable when all are (or none holds the turn):
// the slot a turn of `tokens` left its conversation in (PickSlotHolding);
boost::asio::awaitable<Result<int>> SlotHolding(std::filesystem::path socket, uint64_t tokens);
// the slot that served the engine's latest task (highest task id);
boost::asio::awaitable<Result<int>> NewestSlot(std::filesystem::path socket);
// the slot to restore a conversation into, among those not `claimed` by
// another restore: one that never held a prompt, else the one that served
// least recently (llama-server's own choice for a new prompt).
boost::asio::awaitable<Result<int>> RestoreTarget(std::filesystem::path socket,
                                                  std::set<int> claimed);
// Saves slot `id` as `filename` in the engine's --slot-save-path.
boost::asio::awaitable<Status> SaveSlot(std::filesystem::path socket, int id, std::string filename);
// Restores `filename` from the engine's --slot-save-path into slot `id`.
boost::asio::awaitable<Status> RestoreSlot(std::filesystem::path socket, int id,
                                           std::string filename);

}  // namespace zest::scheduler
