// When `auto` gives up on a draft: only once the sample is large enough,
// only below the share accepted where drafting pays, and never for a draft
// the user asked for by name.
#include "scheduler/draft_acceptance.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

TEST(DraftAcceptanceTest, NoVerdictBeforeTheSampleIsLargeEnough) {
  DraftAcceptance acceptance("d", /*watched=*/true);
  acceptance.Record(DraftAcceptance::kMinDraftedTokens - 1, 0);
  EXPECT_FALSE(acceptance.SwitchOff());
  acceptance.Record(1, 0);
  std::optional<placement::DraftSwitchOff> off = acceptance.SwitchOff();
  ASSERT_TRUE(off);
  EXPECT_EQ(off->draft_model, "d");
  EXPECT_EQ(off->drafted, DraftAcceptance::kMinDraftedTokens);
  EXPECT_DOUBLE_EQ(off->acceptance, 0.0);
}

TEST(DraftAcceptanceTest, ADraftThatPaysStaysOn) {
  DraftAcceptance acceptance("d", true);
  for (int i = 0; i < 100; ++i) acceptance.Record(16, 10);
  EXPECT_FALSE(acceptance.SwitchOff());
}

TEST(DraftAcceptanceTest, TheThresholdIsTheShareAccepted) {
  DraftAcceptance low("d", true);
  low.Record(1000, 249);
  ASSERT_TRUE(low.SwitchOff());
  EXPECT_NEAR(low.SwitchOff()->acceptance, 0.249, 1e-9);
  DraftAcceptance enough("d", true);
  enough.Record(1000, 250);
  EXPECT_FALSE(enough.SwitchOff());
}

TEST(DraftAcceptanceTest, AnExplicitDraftIsNeverSwitchedOff) {
  DraftAcceptance acceptance("d", /*watched=*/false);
  acceptance.Record(10000, 0);
  EXPECT_FALSE(acceptance.SwitchOff());
}

TEST(DraftAcceptanceTest, AcceptedNeverCountsMoreThanDrafted) {
  DraftAcceptance acceptance("d", true);
  acceptance.Record(300, 0);
  acceptance.Record(10, 500);  // a malformed answer cannot rescue the draft
  ASSERT_TRUE(acceptance.SwitchOff());
  EXPECT_NEAR(acceptance.SwitchOff()->acceptance, 10.0 / 310.0, 1e-9);
}

}  // namespace
}  // namespace zest::scheduler
