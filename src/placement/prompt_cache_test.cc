#include "placement/prompt_cache.h"

#include <gtest/gtest.h>

namespace zest::placement {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * kKiB;

struct Case {
  const char* what;
  std::vector<uint64_t> tokens;  // newest first
  PromptCacheShape shape;
  uint64_t held;
  uint64_t reserved;
};

TEST(PromptCacheTest, HoldsEveryConversationButTheNewestWithinTheCeiling) {
  const PromptCacheShape shape{.bytes_per_token = 8 * kKiB, .ceiling = 8192 * kMiB};
  const uint64_t state = 4000 * 8 * kKiB;  // 31.25 MiB
  const std::vector<Case> cases = {
      {"nothing served", {}, shape, 0, 0},
      {"one conversation: in its slot, saved by the next request", {4000}, shape, 0, state},
      {"two: the older one saved though it has a slot of its own",
       {4000, 4000},
       shape,
       state,
       2 * state},
      {"8: 7 cached, the newest next", std::vector<uint64_t>(8, 4000), shape, 7 * state, 8 * state},
      {"the next is the newest's state",
       {100, 4000, 50},
       shape,
       state + 50 * 8 * kKiB,
       state + 150 * 8 * kKiB},
      {"a ceiling of 3 states holds the 3 newest after it, and the one coming in",
       std::vector<uint64_t>(8, 4000),
       {.bytes_per_token = 8 * kKiB, .ceiling = 3 * state},
       3 * state,
       4 * state},
      {"a state never holds more than a slot's context",
       {9000, 9000, 9000},
       {.bytes_per_token = 8 * kKiB, .ceiling = 8192 * kMiB, .max_tokens = 4096},
       2 * 4096 * 8 * kKiB,
       3 * 4096 * 8 * kKiB},
      {"no cache (ceiling 0)", std::vector<uint64_t>(8, 4000), {.bytes_per_token = 8 * kKiB}, 0, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(PromptCacheHeld(c.tokens, c.shape), c.held) << c.what;
    EXPECT_EQ(PromptCacheReserved(c.tokens, c.shape), c.reserved) << c.what;
  }
}

TEST(PromptCacheTest, TheShapeComesFromThePlan) {
  EnginePlan plan;
  plan.ctx_per_slot = 4096;
  plan.parallel = 2;
  plan.cache_ram_mib = 256;
  plan.memory = {{"CPU", {.kv_cache = 32 * kMiB}}, {"Vulkan0", {.kv_cache = 32 * kMiB}}};
  const PromptCacheShape shape = PromptCacheShapeOf(plan);
  EXPECT_EQ(shape.bytes_per_token, 8 * kKiB) << "64 MiB over 8192 cells, every device";
  EXPECT_EQ(shape.ceiling, 256 * kMiB);
  EXPECT_EQ(shape.max_tokens, 4096u);
  plan.cache_ram_mib.reset();
  EXPECT_EQ(PromptCacheShapeOf(plan).ceiling, 0u) << "no cache";
}

}  // namespace
}  // namespace zest::placement
