#include "placement/prompt_cache.h"

#include <algorithm>

namespace zest::placement {
namespace {

uint64_t StateBytes(uint64_t tokens, const PromptCacheShape& shape) {
  if (shape.max_tokens > 0) tokens = std::min(tokens, shape.max_tokens);
  return tokens * shape.bytes_per_token;
}

}  // namespace

PromptCacheShape PromptCacheShapeOf(const EnginePlan& plan) {
  PromptCacheShape shape;
  shape.max_tokens = plan.ctx_per_slot;
  shape.ceiling = plan.cache_ram_mib.value_or(0) << 20;
  uint64_t kv = 0;
  for (const DeviceUse& use : plan.memory) kv += use.memory.kv_cache;
  const uint64_t cells = plan.ctx_per_slot * static_cast<uint64_t>(std::max(plan.parallel, 1));
  shape.bytes_per_token = cells > 0 ? kv / cells : 0;
  return shape;
}

uint64_t PromptCacheHeld(const std::vector<uint64_t>& tokens_newest_first,
                         const PromptCacheShape& shape) {
  uint64_t held = 0;
  // Newest first, so the states that no longer fit are the oldest ones.
  for (std::size_t i = 1; i < tokens_newest_first.size(); ++i) {
    const uint64_t state = StateBytes(tokens_newest_first[i], shape);
    if (held + state > shape.ceiling) break;
    held += state;
  }
  return held;
}

uint64_t PromptCacheReserved(const std::vector<uint64_t>& tokens_newest_first,
                             const PromptCacheShape& shape) {
  if (shape.ceiling == 0 || tokens_newest_first.empty()) return 0;  // no cache, or nothing yet
  return PromptCacheHeld(tokens_newest_first, shape) + StateBytes(tokens_newest_first[0], shape);
}

}  // namespace zest::placement
