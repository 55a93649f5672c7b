#include "http/body_budget.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

TEST(BodyBudget, ReservesUntilTheHandleGoes) {
  BodyBudget budget(100);
  std::shared_ptr<void> a = budget.Reserve(60);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(budget.held(), 60u);
  EXPECT_EQ(budget.Reserve(41), nullptr);  // 101 would not fit
  std::shared_ptr<void> b = budget.Reserve(40);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(budget.held(), 100u);
  a.reset();
  EXPECT_EQ(budget.held(), 40u);
  EXPECT_NE(budget.Reserve(60), nullptr);  // given back again at once
  EXPECT_EQ(budget.held(), 40u);
}

TEST(BodyBudget, NothingLargerThanTheBudgetFits) {
  BodyBudget budget(100);
  EXPECT_EQ(budget.Reserve(101), nullptr);
  EXPECT_EQ(budget.Reserve(UINT64_MAX), nullptr);
  EXPECT_EQ(budget.held(), 0u);
}

TEST(BodyBudget, ZeroIsNoLimit) {
  BodyBudget budget(0);
  std::shared_ptr<void> big = budget.Reserve(uint64_t{1} << 40);
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(budget.held(), uint64_t{1} << 40);
}

}  // namespace
}  // namespace zest::http
