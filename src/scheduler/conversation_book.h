// ConversationBook: the conversations one engine served, most recent
// first, each with the tokens its state holds after its last turn (the
// prompt and the answer). It is what zest knows of the engine's host-RAM
// prompt cache, which has no API: placement/prompt_cache.h turns it into
// what the cache holds and what the ledger holds for it.
//
// A conversation is its session (api/session_key.h: named, or known by its
// opening); a turn without one counts as a conversation of its own, which
// over-counts a long conversation with a short opening by its earlier
// turns (bounded by the cache's ceiling, as the ledger was before).
// Bounded by count, oldest out. Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"

namespace zest::scheduler {

class ConversationBook {
 public:
  // More than any engine's cache holds states of (a state is at least a
  // few hundred tokens).
  static constexpr std::size_t kMaxConversations = 1024;

  // A turn of `conversation` ("" = one without a session) ended with its
  // state holding `tokens`.
  void Record(const std::string& conversation, uint64_t tokens);
  // Each conversation's tokens, the most recent first.
  std::vector<uint64_t> TokensNewestFirst() const;
  std::size_t size() const;

 private:
  struct Turn {
    std::string conversation;
    uint64_t tokens = 0;
  };
  using Order = std::list<Turn>;  // most recent first
  mutable Mutex mu_;
  Order order_ GUARDED_BY(mu_);
  std::unordered_map<std::string, Order::iterator> index_ GUARDED_BY(mu_);  // named ones
};

}  // namespace zest::scheduler
