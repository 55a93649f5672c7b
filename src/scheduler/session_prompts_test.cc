#include "scheduler/session_prompts.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

RememberedPrompt Prompt(const std::string& session, pid_t engine, std::size_t bytes) {
  return {.session = session,
          .engine = engine,
          .path = "/v1/chat/completions",
          .body = std::string(bytes, 'x')};
}

// What one prompt of a 100-byte body is charged.
const std::size_t kOne = SessionPrompts::Cost("m", Prompt("a", 1, 100));

std::vector<std::string> Sessions(const std::vector<RememberedPrompt>& prompts) {
  std::vector<std::string> out;
  for (const auto& p : prompts) out.push_back(p.session);
  return out;
}

TEST(SessionPromptsTest, ListsAnEnginesSessionsMostRecentFirst) {
  SessionPrompts prompts(10 * kOne);
  prompts.Remember("m", Prompt("a", 10, 10));
  prompts.Remember("m", Prompt("b", 10, 10));
  prompts.Remember("m", Prompt("c", 11, 10));      // another replica
  prompts.Remember("other", Prompt("d", 10, 10));  // another model
  EXPECT_EQ(Sessions(prompts.ServedBy("m", 10)), (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(prompts.Count("m"), 3u);
  EXPECT_EQ(prompts.EngineOf("m", "c"), 11);
  EXPECT_EQ(prompts.EngineOf("m", "d"), 0);  // d is another model's
}

TEST(SessionPromptsTest, ALaterTurnReplacesTheEarlierOne) {
  SessionPrompts prompts(10 * kOne);
  prompts.Remember("m", Prompt("a", 10, 100));
  prompts.Remember("m", Prompt("a", 12, 300));  // moved to another engine, grown
  EXPECT_EQ(prompts.bytes(), SessionPrompts::Cost("m", Prompt("a", 12, 300)));
  EXPECT_GT(prompts.bytes(), 300u) << "what keeping it takes beside the body counts too";
  EXPECT_EQ(prompts.Count("m"), 1u);
  EXPECT_EQ(prompts.EngineOf("m", "a"), 12);
  EXPECT_TRUE(prompts.ServedBy("m", 10).empty());
}

TEST(SessionPromptsTest, TheLeastRecentlyUsedGoFirstPastTheBudget) {
  SessionPrompts prompts(2 * kOne + kOne / 2);
  prompts.Remember("m", Prompt("a", 1, 100));
  prompts.Remember("m", Prompt("b", 1, 100));
  prompts.Remember("m", Prompt("a", 1, 100));  // used again: b is now the oldest
  prompts.Remember("m", Prompt("c", 1, 100));
  EXPECT_EQ(Sessions(prompts.ServedBy("m", 1)), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(prompts.bytes(), 2 * kOne);
}

TEST(SessionPromptsTest, APromptOverTheWholeBudgetIsNotKept) {
  SessionPrompts prompts(kOne + 150);
  prompts.Remember("m", Prompt("a", 1, 100));
  prompts.Remember("m", Prompt("b", 1, 251));
  EXPECT_EQ(Sessions(prompts.ServedBy("m", 1)), (std::vector<std::string>{"a"}));
  // Its older, smaller turn is forgotten too: it is stale now.
  prompts.Remember("m", Prompt("a", 1, 300));
  EXPECT_EQ(prompts.Count("m"), 0u);
  EXPECT_EQ(prompts.bytes(), 0u);
}

TEST(SessionPromptsTest, AStoppedEnginesTurnsAreForgotten) {
  SessionPrompts prompts(10 * kOne);
  prompts.Remember("m", Prompt("a", 10, 100));
  prompts.Remember("m", Prompt("b", 11, 100));
  prompts.Remember("other", Prompt("c", 10, 100));
  prompts.Forget("m", 10);
  EXPECT_EQ(prompts.EngineOf("m", "a"), 0);
  EXPECT_EQ(prompts.EngineOf("m", "b"), 11);
  EXPECT_EQ(prompts.EngineOf("other", "c"), 10) << "another model's engine";
  EXPECT_EQ(prompts.bytes(), SessionPrompts::Cost("m", Prompt("b", 11, 100)) +
                                 SessionPrompts::Cost("other", Prompt("c", 10, 100)));
}

// A turn written behind is saved unless a later turn of its session came
// before the save was done.
TEST(SessionPromptsTest, ATurnIsSavedOnlyIfNoLaterOneCame) {
  SessionPrompts prompts(1 << 20);
  prompts.Remember("m", {.session = "s", .engine = 7, .path = "/x", .body = "one"});
  const uint64_t first = prompts.TurnOf("m", "s");
  ASSERT_GT(first, 0u);
  EXPECT_EQ(prompts.TurnOf("m", "other"), 0u);
  prompts.Remember("m", {.session = "s", .engine = 7, .path = "/x", .body = "two"});
  prompts.MarkSaved("m", "s", first);
  EXPECT_FALSE(prompts.ServedBy("m", 7).at(0).saved) << "the second turn is not in the file";
  prompts.MarkSaved("m", "s", prompts.TurnOf("m", "s"));
  EXPECT_TRUE(prompts.ServedBy("m", 7).at(0).saved);
  prompts.Remember("m", {.session = "s", .engine = 7, .path = "/x", .body = "three"});
  EXPECT_FALSE(prompts.ServedBy("m", 7).at(0).saved) << "a new turn is unsaved again";
}

}  // namespace
}  // namespace zest::scheduler
