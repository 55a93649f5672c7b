#include "api/key_scope.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

using scheduler::Priority;
using namespace std::chrono_literals;

http::Request Key(bool inference, std::string priority) {
  http::Request r;
  r.inference_key = inference;
  r.default_priority = std::move(priority);
  return r;
}

TEST(KeyScope, AnInferenceKeysPriorityIsACeiling) {
  struct Case {
    bool inference;
    std::string key_priority;
    std::string asked;
    Priority expected;
  };
  const std::vector<Case> cases = {
      {true, "low", "high", Priority::kLow},  // asking more is capped
      {true, "low", "", Priority::kLow},      // the key's is the default
      {true, "high", "low", Priority::kLow},  // asking less is fine
      {true, "", "high", Priority::kNormal},  // no priority: normal is the ceiling
      {true, "normal", "HIGH", Priority::kNormal},
      {false, "low", "high", Priority::kHigh},  // admin keys get what they ask
      {false, "", "", Priority::kNormal},       // no keys at all: normal unless asked
      {false, "", "high", Priority::kHigh},
  };
  for (const Case& c : cases) {
    auto p = RequestPriority(Key(c.inference, c.key_priority), c.asked);
    ASSERT_TRUE(p.ok()) << c.asked;
    EXPECT_EQ(*p, c.expected) << c.key_priority << " asked " << c.asked;
  }
  EXPECT_FALSE(RequestPriority(Key(true, "low"), "urgent").ok());
}

TEST(KeyScope, AnInferenceKeysKeepAliveIsCapped) {
  const Duration max = std::chrono::milliseconds(10min);
  const std::optional<Duration> forever = Duration(std::nullopt);
  const std::optional<Duration> hour = Duration(std::chrono::milliseconds(1h));
  const std::optional<Duration> minute = Duration(std::chrono::milliseconds(1min));
  EXPECT_EQ(AllowedKeepAlive(Key(true, ""), forever, max), max);
  EXPECT_EQ(AllowedKeepAlive(Key(true, ""), hour, max), max);
  EXPECT_EQ(AllowedKeepAlive(Key(true, ""), minute, max), minute);
  EXPECT_EQ(AllowedKeepAlive(Key(true, ""), std::nullopt, max), std::nullopt);  // not asked
  EXPECT_EQ(AllowedKeepAlive(Key(false, ""), forever, max), forever);           // admin
  EXPECT_EQ(AllowedKeepAlive(Key(true, ""), forever, Duration(std::nullopt)), forever);
}

}  // namespace
}  // namespace zest::api
