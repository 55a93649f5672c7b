// Prompt cache: what an engine's host-RAM cache of idle conversations
// (llama-server's --cache-ram) holds, predicted from the conversations the
// engine served, and what the memory ledger holds for it.
//
// What llama-server does (measured with the rootfs build 11669,
// conversations of ~4,000 tokens of 8 KiB a token on 2 slots, RSS after
// every request): when a request arrives, the conversation an idle slot
// holds is saved into the cache as one state of its tokens' KV (tokens × KV
// bytes a token), whether or not the request needs that slot; a
// conversation that comes back replaces its state. So the cache holds every
// conversation served but the newest (still only in its slot), up to its
// ceiling, beyond which the oldest states are dropped. Its RSS grew 32 MiB
// with the second conversation though it had an empty slot of its own (31.0
// MiB a state), 31.5 MiB with each one after, and stayed flat once all took
// turns; with --cache-ram 0 it did not grow.
//
// The ledger holds what the cache holds now plus the state the next
// request will save (the newest conversation's). At the ceiling
// that one is still held: the engine adds a state before it drops the
// oldest, and glibc keeps the freed one a while (seen in RSS). The ceiling
// is what the engine may grow to, not what it uses, and counting it whole
// kept out models that fit (issue 45: 3.9 GiB predicted for an engine of
// 1.4 GiB). When a turn makes the cache grow
// past what was held, the pool checks the machine again (instance_pool).
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "placement/engine_plan.h"

namespace zest::placement {

struct PromptCacheShape {
  uint64_t bytes_per_token = 0;  // KV cache bytes of one token of one sequence
  uint64_t ceiling = 0;          // --cache-ram in bytes; 0: no cache
  uint64_t max_tokens = 0;       // a slot's context: no state holds more; 0: no cap
};

// The cache of an engine loaded with `plan`: its KV cache bytes a token of
// one sequence (over every device: the engine copies a state to host RAM
// wherever the cache lives), --cache-ram and a slot's context. A plan
// without a cache (cache_ram_mib unset or 0) has ceiling 0.
PromptCacheShape PromptCacheShapeOf(const EnginePlan& plan);

// What the cache holds after the conversations `tokens_newest_first` (the
// tokens of each conversation's last state, the one served most recently
// first).
uint64_t PromptCacheHeld(const std::vector<uint64_t>& tokens_newest_first,
                         const PromptCacheShape& shape);

// What the ledger holds for the cache: PromptCacheHeld plus the newest
// conversation's state, which the next request saves.
uint64_t PromptCacheReserved(const std::vector<uint64_t>& tokens_newest_first,
                             const PromptCacheShape& shape);

}  // namespace zest::placement
