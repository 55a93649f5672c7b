// SessionPrompts: the last engine-bound request of each conversation
// (a session, api/session_key.h) per model, which is what it takes to
// bring the conversation back into a slot: replayed to the engine with
// nothing to generate, llama-server evaluates it (from its host-RAM prompt
// cache when it is there, which is cheap) into a slot that can then be
// saved (session_tier.h). The engine's RAM cache has no API to dump it.
//
// Bounded by the bytes of the bodies kept, least recently used first out;
// a body larger than the whole budget is not kept. Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/mutex.h"

namespace zest::scheduler {

struct RememberedPrompt {
  std::string session;  // the scoped session key (32 hex digits)
  pid_t engine = 0;     // the instance that served it last
  std::string path;     // the engine's endpoint, e.g. /v1/chat/completions
  std::string body;     // the request as that engine took it
  // Set by SessionPrompts: this turn's number (they grow), and whether its
  // conversation's state was saved after it (written behind: nothing to
  // replay at the engine's stop).
  uint64_t turn = 0;
  bool saved = false;
};

class SessionPrompts {
 public:
  explicit SessionPrompts(std::size_t budget_bytes) : budget_(budget_bytes) {}

  // `prompt` is the latest of its session on `model`; older ones out past
  // the budget.
  void Remember(const std::string& model, RememberedPrompt prompt);
  // The sessions of `model` that `engine` served last, most recent first.
  std::vector<RememberedPrompt> ServedBy(const std::string& model, pid_t engine) const;
  // The engine that served `session` of `model` last; 0 when not known.
  pid_t EngineOf(const std::string& model, const std::string& session) const;
  // The number of `session`'s latest turn on `model`; 0 when not kept.
  uint64_t TurnOf(const std::string& model, const std::string& session) const;
  // Its state after turn `turn` is saved: unless a later turn came since.
  void MarkSaved(const std::string& model, const std::string& session, uint64_t turn);
  // Forgets what `engine` of `model` served (it stopped: its turns are in
  // files, or gone).
  void Forget(const std::string& model, pid_t engine);
  // How many sessions of `model` are kept.
  std::size_t Count(const std::string& model) const;
  std::size_t bytes() const;
  // What `prompt` is charged against the budget: its body and what keeping
  // it takes beside (its strings, the list and map nodes).
  static std::size_t Cost(const std::string& model, const RememberedPrompt& prompt);

 private:
  struct Kept {
    std::string model;
    RememberedPrompt prompt;
  };
  using Order = std::list<Kept>;  // most recent first
  static std::string Key(const std::string& model, const std::string& session) {
    return model + '\n' + session;
  }
  void Drop(Order::iterator it) REQUIRES(mu_);

  const std::size_t budget_;
  mutable Mutex mu_;
  Order order_ GUARDED_BY(mu_);
  std::unordered_map<std::string, Order::iterator> index_ GUARDED_BY(mu_);
  std::size_t bytes_ GUARDED_BY(mu_) = 0;
  uint64_t turns_ GUARDED_BY(mu_) = 0;
};

}  // namespace zest::scheduler
