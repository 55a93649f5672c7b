#include "scheduler/dispatch.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

TEST(PickInstance, NoneOrAllFullIsNothing) {
  EXPECT_FALSE(PickInstance({}).has_value());
  EXPECT_FALSE(PickInstance({{4, 4, 10.0}, {2, 2, std::nullopt}}).has_value());
}

TEST(PickInstance, NeverMoreThanItsSlots) {
  // The fast one is full: the slow one gets it even though it would be faster to wait.
  EXPECT_EQ(PickInstance({{4, 4, 1.0}, {3, 4, 100.0}}), 1u);
}

TEST(PickInstance, LeastExpectedCompletionTime) {
  // (1+1)*10 = 20 vs (0+1)*30 = 30: the busier fast one wins.
  EXPECT_EQ(PickInstance({{1, 4, 10.0}, {0, 4, 30.0}}), 0u);
  // (2+1)*10 = 30 vs (0+1)*25 = 25: now the slow idle one does.
  EXPECT_EQ(PickInstance({{2, 4, 10.0}, {0, 4, 25.0}}), 1u);
}

TEST(PickInstance, UnmeasuredCountsAsTheBestKnown) {
  // The new replica (unmeasured) is taken as fast as the 10 ms one: idle beats busy.
  EXPECT_EQ(PickInstance({{1, 4, 10.0}, {0, 4, std::nullopt}}), 1u);
  EXPECT_EQ(PickInstance({{0, 4, 10.0}, {1, 4, std::nullopt}}), 0u);
  // Nothing measured: the least loaded, ties to the first.
  EXPECT_EQ(PickInstance({{2, 4, std::nullopt}, {1, 4, std::nullopt}}), 1u);
  EXPECT_EQ(PickInstance({{0, 4, std::nullopt}, {0, 4, std::nullopt}}), 0u);
}

TEST(Ewma, FirstSampleThenWeighted) {
  EXPECT_DOUBLE_EQ(Ewma(std::nullopt, 8.0), 8.0);
  EXPECT_DOUBLE_EQ(Ewma(10.0, 20.0, 0.5), 15.0);
  EXPECT_DOUBLE_EQ(Ewma(10.0, 20.0, 0.3), 13.0);
}

}  // namespace
}  // namespace zest::scheduler
