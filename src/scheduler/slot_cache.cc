#include "scheduler/slot_cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <regex>

#include "engines/llama_slots.h"
#include "http/upstream_client.h"

namespace zest::scheduler {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;

constexpr std::size_t kMaxReplyBytes = 16u << 20;  // /slots carries each slot's params

const std::string kPost = "POST";

std::string SlotFile(int id) { return "slot-" + std::to_string(id) + ".bin"; }

// One request to the engine; the reply body when it answers 200.
asio::awaitable<Result<std::string>> Call(fs::path socket, std::string method, std::string target,
                                          std::string body) {
  auto executor = co_await asio::this_coro::executor;
  http::UpstreamRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.body = std::move(body);
  if (!request.body.empty()) request.headers.emplace_back("Content-Type", "application/json");
  auto response = co_await http::SendUpstream(executor, socket.string(), std::move(request));
  if (!response.ok()) co_return response.status();
  auto reply = co_await (*response)->ReadAll(kMaxReplyBytes);
  if (!reply.ok()) co_return reply.status();
  if ((*response)->status() != 200) {
    co_return EngineFailed("engine answered " + std::to_string((*response)->status()) + ": " +
                           reply->substr(0, 300));
  }
  co_return std::move(reply).value();
}

// The engine's slots (engines/llama_slots.h: its /slots).
asio::awaitable<Result<std::vector<engines::EngineSlot>>> ListSlots(fs::path socket) {
  const std::string get = "GET", list(engines::kSlotsPath), none;
  auto listed = co_await Call(std::move(socket), get, list, none);
  if (!listed.ok()) co_return listed.status();
  co_return engines::ReadSlots(*listed);
}

// Saves or restores slot `id` as `filename` (engines/llama_slots.h).
asio::awaitable<Status> SlotAction(fs::path socket, int id, engines::SlotAction action,
                                   std::string filename) {
  engines::EngineCall call = engines::SlotActionCall(id, action, filename);
  auto done = co_await Call(socket, kPost, std::move(call.path), std::move(call.body));
  co_return done.ok() ? Status::Ok() : done.status();
}

}  // namespace

asio::awaitable<Result<int>> IdleSlot(fs::path socket) {
  auto slots = co_await ListSlots(std::move(socket));
  if (!slots.ok()) co_return slots.status();
  for (const engines::EngineSlot& slot : *slots) {
    if (!slot.processing.value_or(true) && slot.id >= 0) co_return slot.id;
  }
  co_return Unavailable("every slot of the engine is busy");
}

namespace {

// The slots as /slots lists them, for PickSlot.
std::vector<SlotState> StatesOf(const std::vector<engines::EngineSlot>& slots) {
  std::vector<SlotState> out;
  for (const engines::EngineSlot& slot : slots) {
    out.push_back({.id = slot.id,
                   .processing = slot.processing.value_or(true),
                   .task = slot.task.value_or(-1),
                   .prompt_tokens = slot.prompt_tokens});
  }
  return out;
}

asio::awaitable<Result<int>> PickIdleSlot(fs::path socket, SlotPick pick,
                                          std::set<int> claimed = {}) {
  auto slots = co_await ListSlots(std::move(socket));
  if (!slots.ok()) co_return slots.status();
  std::optional<int> id = PickSlot(StatesOf(*slots), pick, claimed);
  if (!id) co_return Unavailable("every slot of the engine is busy");
  co_return *id;
}

}  // namespace

std::optional<int> PickSlot(const std::vector<SlotState>& slots, SlotPick pick,
                            const std::set<int>& claimed) {
  // A slot that never served a task, or whose prompt is gone, counts as task -1.
  auto task = [](const SlotState& s) { return s.prompt_tokens > 0 ? s.task : -1; };
  const SlotState* best = nullptr;
  for (const SlotState& slot : slots) {
    if (slot.processing || slot.id < 0 || claimed.contains(slot.id)) continue;
    const bool better = best == nullptr || (pick == SlotPick::kNewest ? task(slot) > task(*best)
                                                                      : task(slot) < task(*best));
    if (better) best = &slot;
  }
  return best ? std::optional<int>(best->id) : std::nullopt;
}

std::optional<int> PickSlotHolding(const std::vector<SlotState>& slots, uint64_t tokens) {
  const SlotState* best = nullptr;
  for (const SlotState& slot : slots) {
    const auto held = static_cast<uint64_t>(std::max(slot.prompt_tokens, 0));
    const bool holds = held + 2 >= tokens && held <= tokens;  // tokens - 2 .. tokens
    if (slot.processing || slot.id < 0 || !holds) continue;
    if (best == nullptr || slot.task > best->task) best = &slot;
  }
  return best ? std::optional<int>(best->id) : std::nullopt;
}

asio::awaitable<Result<int>> SlotHolding(fs::path socket, uint64_t tokens) {
  auto slots = co_await ListSlots(std::move(socket));
  if (!slots.ok()) co_return slots.status();
  std::optional<int> id = PickSlotHolding(StatesOf(*slots), tokens);
  if (!id) co_return Unavailable("no idle slot holds the conversation");
  co_return *id;
}

asio::awaitable<Result<int>> NewestSlot(fs::path socket) {
  co_return co_await PickIdleSlot(std::move(socket), SlotPick::kNewest);
}

asio::awaitable<Result<int>> RestoreTarget(fs::path socket, std::set<int> claimed) {
  co_return co_await PickIdleSlot(std::move(socket), SlotPick::kRestoreTarget, std::move(claimed));
}

asio::awaitable<Status> SaveSlot(fs::path socket, int id, std::string filename) {
  co_return co_await SlotAction(std::move(socket), id, engines::SlotAction::kSave,
                                std::move(filename));
}

asio::awaitable<Status> RestoreSlot(fs::path socket, int id, std::string filename) {
  co_return co_await SlotAction(std::move(socket), id, engines::SlotAction::kRestore,
                                std::move(filename));
}

asio::awaitable<Result<int>> SaveSlots(fs::path socket, fs::path dir) {
  auto slots = co_await ListSlots(socket);
  if (!slots.ok()) co_return slots.status();
  int saved = 0;
  for (const engines::EngineSlot& slot : *slots) {
    // A slot that never served a task has no id_task and nothing to keep.
    if (!slot.task || slot.processing.value_or(false)) continue;
    if (slot.prompt_tokens <= 0) continue;
    const int id = slot.id;
    if (id < 0) continue;
    // Arguments named, not temporaries inside co_await (GCC 12).
    const std::string file = SlotFile(id);
    Status done = co_await SlotAction(socket, id, engines::SlotAction::kSave, file);
    if (!done.ok()) {
      spdlog::warn("cannot save slot {} to {}: {}", id, dir.string(), done.message());
      continue;
    }
    ++saved;
  }
  co_return saved;
}

asio::awaitable<Result<int>> RestoreSlots(fs::path socket, fs::path dir) {
  static const std::regex kName(R"(slot-(\d{1,4})\.bin)");
  std::error_code ec;
  std::vector<std::pair<int, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, kName)) files.emplace_back(std::stoi(m[1]), entry.path());
  }
  int restored = 0;
  for (const auto& [id, file] : files) {
    const std::string name = file.filename().string();
    Status done = co_await SlotAction(socket, id, engines::SlotAction::kRestore, name);
    if (done.ok()) {
      ++restored;
    } else {
      spdlog::warn("cannot restore {}: {}", file.string(), done.message());
    }
    fs::remove(file, ec);
  }
  co_return restored;
}

}  // namespace zest::scheduler
