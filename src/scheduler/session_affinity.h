// Session affinity: a conversation's next turn goes to the replica that
// served its last one, where the engine still holds it (in its slot or its
// host-RAM prompt cache, --cache-ram) and reads only the new tokens; on
// another replica the whole prompt would be read again. Sessions are keys
// the API made (api/session_key.h, already scoped by the API key).
//
// The choice (PickForSession) is pure: the session's replica while it has a
// free slot, else the load-based choice (dispatch.h). A replica with every
// slot busy is the bound: waiting there could take a whole answer's time,
// longer than reading a prompt again elsewhere. A replica that is gone is
// simply not among the candidates.
//
// SessionAffinity remembers the replica of each session: a map bounded by
// count, least recently used first out. Not thread-safe: its owner (the
// InstancePool) guards it with the lock dispatch holds.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduler/dispatch.h"

namespace zest::scheduler {

enum class AffinityOutcome {
  kNone,      // no session: load alone decided
  kHit,       // the session's replica took it
  kMiss,      // a session seen for the first time (or forgotten): load decided
  kFallback,  // its replica was full or gone: load decided
};
// "hit", "miss", "fallback" ("none" for kNone): a metric label.
const char* AffinityOutcomeName(AffinityOutcome outcome);

struct SessionPick {
  std::optional<std::size_t> index;  // as PickInstance: nullopt when every one is full
  AffinityOutcome outcome = AffinityOutcome::kNone;
};

// For a session whose replica is `home` among `candidates` (nullopt: not
// among them), `known` whether it had one: home while it has a free slot,
// else PickInstance.
SessionPick PickForSession(const std::vector<DispatchCandidate>& candidates,
                           std::optional<std::size_t> home, bool known);

class SessionAffinity {
 public:
  explicit SessionAffinity(std::size_t capacity = 16384) : capacity_(capacity) {}

  // The engine (pid) that served `session` last; nullopt when unknown.
  // Counts as a use.
  std::optional<pid_t> Find(const std::string& session);
  // `session` was served by `engine`; past the capacity the least recently
  // used session is forgotten.
  void Remember(const std::string& session, pid_t engine);
  std::size_t size() const { return index_.size(); }

 private:
  using Order = std::list<std::pair<std::string, pid_t>>;  // most recent first
  const std::size_t capacity_;
  Order order_;
  std::unordered_map<std::string, Order::iterator> index_;
};

}  // namespace zest::scheduler
