// SessionTier: conversations survive a model swap, not only the few held in
// the engine's slots. llama-server keeps idle conversations in a host-RAM
// prompt cache (--cache-ram) that dies with the process and has no API to
// dump it; only slots can be saved (slot_cache.h). So zest remembers each
// session's last engine-bound request (session_prompts.h) and, before an
// engine of the model stops, replays each one that engine served with
// nothing to generate: llama-server evaluates it into a slot (from its RAM
// cache when it is there, a copy rather than a prefill) and zest saves that
// slot as the session's file (session_files.h). When the model is loaded
// again, a session's first request there has its file restored into an
// idle slot before it is sent, and llama-server gives it that slot (the
// longest common prefix): only the new tail of its prompt is evaluated.
//
// While models take turns in memory (an engine was evicted for memory
// lately: InstancePool::TurnEnded), each conversation is also written
// behind: saved from its slot as soon as its turn ends, while the slot
// still holds it. Then an eviction, which is on another model's load path,
// finds nothing left to replay and does not wait (a chat front-end's 4
// conversations on 2 slots lost the 2 its engine's small RAM cache could
// not hold, and the replays that tried to bring them back doubled the
// slowest turns: issue 45).
//
// What it costs is bounded: the prompts kept by bytes, the files by a disk
// budget (least recently used out), the replays at a stop by time (shorter
// when a load waits for the stop), and prompts shorter than a threshold
// are not saved (reading them again costs about what a restore does). A replay, save or restore
// that fails leaves the conversation to a plain prefill, logged. Only the model's first instance
// takes part (its engine has the model's slot directory; a replica's has none). A slot a restore
// filled is kept from other restores until the request it was for is done (SlotClaim), so two
// sessions arriving together on a fresh engine do not restore into the same slot.
//
// Thread-safe: Remember and Stats from any thread; the coroutines on any
// executor (each talks to one engine over its socket).
#pragma once

#include <sys/types.h>

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/mutex.h"
#include "scheduler/instance.h"
#include "scheduler/pool_events.h"
#include "scheduler/session_prompts.h"
#include "scheduler/slot_dirs.h"

namespace zest::scheduler {

struct SessionTierOptions {
  std::filesystem::path slot_root;              // the slot directory (slot_dirs.h); empty: off
  uint64_t disk_budget_bytes = 2048ull << 20;   // the session files of every model; 0: off
  std::size_t prompt_budget_bytes = 64u << 20;  // the requests remembered
  // How long the replays and saves before one engine stops may take in
  // all: a replay that finds its conversation in the RAM cache takes
  // milliseconds to a few hundred, one that does not is a whole prefill
  // (seconds per thousand tokens on a CPU), which the budget cuts off.
  std::chrono::milliseconds save_budget{10'000};
  // How long one replay may take. One that finds its conversation in the
  // RAM cache is a copy (92-306 ms for 2,747 tokens on a busy 2-core VM);
  // one that takes longer is reading the prompt whole, which would move
  // that prefill onto the stop's path rather than spare it.
  std::chrono::milliseconds replay_budget{2'000};
  // The replays' budget when another model's load waits for the stop (an
  // eviction): what was written behind needs none, and a replay that
  // finds its conversation in the RAM cache takes a few hundred ms.
  std::chrono::milliseconds hurried_save_budget{1'000};
  // Prompts of fewer tokens are not saved: their prefill is about as
  // quick as a restore.
  int min_tokens = 256;
};

// What the tier did for one model.
struct SessionTierStats {
  std::size_t sessions = 0;  // remembered now
  uint64_t saves = 0;        // session files written
  uint64_t restores = 0;     // restored into a slot (hits)
  uint64_t failed_restores = 0;
  uint64_t disk_bytes = 0;  // the model's session files now
  int files = 0;
};

class SessionTier {
 public:
  // `events` (may be null) hears of saves and restores; it must outlive this.
  SessionTier(SessionTierOptions options, PoolEvents* events);

  bool enabled() const { return !options_.slot_root.empty() && options_.disk_budget_bytes > 0; }

  // `instance` is about to be sent `body` (to `path`) for `session`.
  void Remember(const Instance& instance, const std::string& session, std::string path,
                std::string body);

  // Holds the slot a restore filled until the request it was restored for
  // is done: the engine gives that request the slot by its prefix, and
  // another restore meanwhile takes another slot. Empty (null) when nothing
  // was restored; released when the last copy goes.
  using SlotClaim = std::shared_ptr<void>;

  // Before `session`'s request is sent to `instance`: restores its file into
  // an idle slot no other restore holds, when there is one and `instance`
  // has not served the session yet. The caller keeps the claim until its
  // request is done.
  boost::asio::awaitable<SlotClaim> RestoreFor(std::shared_ptr<Instance> instance,
                                               std::string session);
  // The same into `slot`, which the caller holds (zest chose it for the
  // request's key: slot_owners.h); whether the file was restored.
  boost::asio::awaitable<bool> RestoreInto(std::shared_ptr<Instance> instance, std::string session,
                                           int slot);

  // A turn of `session` on `instance` ended with `tokens` in its slot:
  // saves the slot that holds it as the session's file (when one still
  // does and it is worth keeping), within the disk budget.
  boost::asio::awaitable<void> WriteBehind(std::shared_ptr<Instance> instance, std::string session,
                                           uint64_t tokens);

  // Before `instance` stops (idle): saves each conversation it served last
  // and that was not written behind since, within the time budget (the
  // hurried one when a load waits), then trims the files to the disk budget.
  boost::asio::awaitable<void> SaveSessions(std::shared_ptr<Instance> instance, bool hurried);

  // What it did for `model` since zest started, and its files now.
  SessionTierStats StatsOf(const std::string& model) const;

 private:
  struct SavedSession {
    uint64_t bytes = 0;  // 0: not saved
    int tokens = 0;
  };
  // Replays `prompt` and saves its slot.
  boost::asio::awaitable<SavedSession> SaveOne(std::shared_ptr<Instance> instance,
                                               RememberedPrompt prompt,
                                               std::chrono::steady_clock::time_point deadline);
  std::filesystem::path DirOf(const Instance& instance) const;
  // The file of `session` to restore into `instance`; empty: none to.
  std::filesystem::path FileToRestore(const Instance& instance, const std::string& session);
  // Restores it into `slot` and counts it; whether it was.
  boost::asio::awaitable<bool> RestoreOne(std::shared_ptr<Instance> instance, std::string session,
                                          int slot);
  // Until no write behind of `engine` is in flight, or `deadline`.
  boost::asio::awaitable<void> WaitForWrites(pid_t engine,
                                             std::chrono::steady_clock::time_point deadline);
  // Saves slot `slot` of `instance` as `name`, seals it and counts it; its
  // size, 0 when not saved.
  boost::asio::awaitable<uint64_t> SaveSlotAs(std::shared_ptr<Instance> instance, int slot,
                                              std::string name);

  // The slots restores hold, by engine; shared with the claims, which may
  // outlive the tier on a request still in flight at shutdown.
  class Claims {
   public:
    std::set<int> Of(pid_t engine) const;
    // A claim on `slot` of `engine`; null when another restore holds it.
    static SlotClaim Take(const std::shared_ptr<Claims>& claims, pid_t engine, int slot);

   private:
    struct Held;  // one claim; gives its slot back when destroyed
    mutable Mutex mu_;
    std::map<pid_t, std::set<int>> slots_ GUARDED_BY(mu_);
  };

  const SessionTierOptions options_;
  const SlotDirs dirs_;
  PoolEvents* const events_;
  SessionPrompts prompts_;
  const std::shared_ptr<Claims> claims_ = std::make_shared<Claims>();
  mutable Mutex mu_;
  std::map<std::string, SessionTierStats> counts_ GUARDED_BY(mu_);  // saves and restores
  // Writes behind in flight, by engine: a stop waits for them (within its
  // budget) before it replays what they did not save, or kills the engine
  // under a save. Shared with the writes, whose frames may be destroyed
  // after the tier at shutdown.
  class Writes {
   public:
    bool Any(pid_t engine) const;
    // Counts a write of `engine` until the returned handle goes.
    static std::shared_ptr<void> Start(const std::shared_ptr<Writes>& writes, pid_t engine);

   private:
    mutable Mutex mu_;
    std::map<pid_t, int> in_flight_ GUARDED_BY(mu_);
  };
  const std::shared_ptr<Writes> writes_ = std::make_shared<Writes>();
};

}  // namespace zest::scheduler
