#include "core/byte_budget.h"

#include <gtest/gtest.h>

#include <utility>

namespace zest {
namespace {

TEST(ByteBudgetTest, RefusesWhatWouldGoOverAndTakesItBackWhenALeaseEnds) {
  ByteBudget budget(100);
  std::optional<ByteBudget::Lease> first = budget.TryTake(60);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(budget.TryTake(41).has_value());
  EXPECT_EQ(budget.held(), 60u);
  {
    std::optional<ByteBudget::Lease> second = budget.TryTake(40);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(budget.held(), 100u);
    ByteBudget::Lease moved = std::move(*second);  // one owner gives it back, once
    second.reset();
    EXPECT_EQ(budget.held(), 100u);
  }
  EXPECT_EQ(budget.held(), 60u);
  first.reset();
  EXPECT_EQ(budget.held(), 0u);
}

TEST(ByteBudgetTest, OneRequestOverTheWholeLimitFailsEvenWhenNothingIsHeld) {
  ByteBudget budget(100);
  EXPECT_FALSE(budget.TryTake(101).has_value());
  EXPECT_TRUE(budget.TryTake(100).has_value());
}

TEST(ByteBudgetTest, ZeroMeansNoLimit) {
  ByteBudget budget(0);
  EXPECT_TRUE(budget.TryTake(UINT64_MAX / 2).has_value());
}

}  // namespace
}  // namespace zest
