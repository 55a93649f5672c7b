// SlotOwners: which API key filled each of one engine's slots last, so that
// one key never reads another's prompt from the engine's cache (issue 52).
//
// llama-server gives a request the idle slot whose cached tokens share the
// longest prefix with its prompt, reuses that prefix, and says how much it
// reused (cached_tokens, and the time it saved): a key that sends the
// opening of another key's system prompt learns, token by token, how much
// of it it guessed right. So on a server with keys zest chooses the slot
// itself (the request's id_slot) and lets the engine reuse the slot's
// cache (cache_prompt) only when the same key filled it. Given id_slot,
// llama-server never loads its host-RAM prompt cache into the slot either
// (that happens only when it picks the slot itself).
//
// The choice: the slot that holds the request's own conversation (its
// session) while it is idle, else the least recently used idle slot, like
// llama-server's own choice for a new prompt. A slot whose content zest
// cannot vouch for (a fresh engine's, maybe filled by a restore of slots
// another key's requests left; one a request of several sequences used,
// whose slots the engine picks) belongs to no key: nobody reuses it.
//
// Thread-safe; one per Instance.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/mutex.h"

namespace zest::scheduler {

class SlotOwners {
 public:
  explicit SlotOwners(int slots);

  // A slot held for one request until the last copy of `hold` goes; then
  // it belongs to the request's key (or to none, for several sequences).
  struct Taken {
    std::optional<int> slot;  // the request's id_slot; nullopt: the engine picks (several)
    bool reuse = false;       // the slot holds what this key sent: cache_prompt
    std::shared_ptr<void> hold;
  };

  // A slot for one sequence of `owner`'s request in conversation `session`
  // ("" = none), chosen as above. When every slot is held (the engine will
  // queue the request), the least recently used one, not reusable.
  Taken Take(const std::string& owner, const std::string& session);
  // For a request the engine runs as several sequences, in slots it picks:
  // every idle slot held, and none reusable, then or after.
  Taken TakeAll();
  // Everything in every slot is of no key now (the engine was sent work
  // zest did not place, such as a stop's replays).
  void ForgetAll();

  int slots() const { return count_; }

 private:
  struct Slot {
    bool held = false;
    std::string owner;  // "" = no key vouched for
    std::string session;
    uint64_t used = 0;  // when last given back; 0 = never
  };
  // The slots, shared with the holds, which may outlive the instance (a
  // request's frame is destroyed after its lease).
  struct Book {
    Mutex mu;
    std::vector<Slot> slots GUARDED_BY(mu);
    uint64_t clock GUARDED_BY(mu) = 0;
    uint64_t forgotten GUARDED_BY(mu) =
        0;  // ForgetAll calls: a hold from before vouches for nothing
    // Requests of several sequences in flight: the engine may put one of
    // their sequences in any slot given back meanwhile.
    int several GUARDED_BY(mu) = 0;
  };
  class Hold;  // gives its slots back when destroyed
  static int Choose(const std::vector<Slot>& slots, const std::string& owner,
                    const std::string& session);

  const std::shared_ptr<Book> book_;
  const int count_;
};

}  // namespace zest::scheduler
