#include "scheduler/session_affinity.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

// Two replicas of two slots each; the second is the faster.
std::vector<DispatchCandidate> Two(int busy0, int busy1) {
  return {{.in_flight = busy0, .slots = 2, .per_token_ms = 20.0},
          {.in_flight = busy1, .slots = 2, .per_token_ms = 10.0}};
}

TEST(PickForSessionTest, HomeWhileItHasAFreeSlotElseLoad) {
  struct Case {
    const char* what;
    std::vector<DispatchCandidate> candidates;
    std::optional<std::size_t> home;
    bool known;
    std::optional<std::size_t> want;
    AffinityOutcome outcome;
  };
  const Case cases[] = {
      {"home idle, though slower", Two(0, 0), 0, true, 0, AffinityOutcome::kHit},
      {"home busier but not full", Two(1, 0), 0, true, 0, AffinityOutcome::kHit},
      {"home full: load decides", Two(2, 0), 0, true, 1, AffinityOutcome::kFallback},
      {"home gone: load decides", Two(0, 0), std::nullopt, true, 1, AffinityOutcome::kFallback},
      {"new session: load decides", Two(0, 0), std::nullopt, false, 1, AffinityOutcome::kMiss},
      {"everything full", Two(2, 2), 1, true, std::nullopt, AffinityOutcome::kFallback},
  };
  for (const Case& c : cases) {
    SessionPick pick = PickForSession(c.candidates, c.home, c.known);
    EXPECT_EQ(pick.index, c.want) << c.what;
    EXPECT_EQ(pick.outcome, c.outcome) << c.what;
  }
}

TEST(SessionAffinityTest, RemembersTheLastReplicaAndForgetsTheLeastRecentlyUsed) {
  SessionAffinity affinity(2);
  EXPECT_EQ(affinity.Find("a"), std::nullopt);
  affinity.Remember("a", 100);
  affinity.Remember("b", 200);
  EXPECT_EQ(affinity.Find("a"), 100);  // a used: b is now the oldest
  affinity.Remember("c", 300);
  EXPECT_EQ(affinity.size(), 2u);
  EXPECT_EQ(affinity.Find("b"), std::nullopt);
  EXPECT_EQ(affinity.Find("a"), 100);
  affinity.Remember("a", 101);  // moved on (a fallback): the new one counts
  EXPECT_EQ(affinity.Find("a"), 101);
  EXPECT_EQ(affinity.Find("c"), 300);
}

}  // namespace
}  // namespace zest::scheduler
