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

}  // namespace zest::scheduler
