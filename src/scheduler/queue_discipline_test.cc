#include "scheduler/queue_discipline.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

using std::chrono::seconds;

class QueueDisciplineTest : public ::testing::Test {
 protected:
  void Push(uint64_t id, Priority p, std::string tenant, int at_s, uint64_t cost = 1) {
    q_.Push({id, p, std::move(tenant), t0_ + seconds(at_s), cost});
  }
  uint64_t PopAt(int at_s) {
    auto r = q_.Pop(t0_ + seconds(at_s));
    return r ? r->id : 0;
  }
  Clock::time_point t0_ = Clock::time_point() + seconds(1000);
  QueueDiscipline q_{std::chrono::milliseconds(10'000)};  // one class per 10 s waited
};

TEST_F(QueueDisciplineTest, HigherClassFirstThenArrival) {
  Push(1, Priority::kLow, "a", 0);
  Push(2, Priority::kNormal, "a", 1);
  Push(3, Priority::kHigh, "a", 2);
  Push(4, Priority::kHigh, "a", 3);
  EXPECT_EQ(PopAt(4), 3u);
  EXPECT_EQ(PopAt(4), 4u);
  EXPECT_EQ(PopAt(4), 2u);
  EXPECT_EQ(PopAt(4), 1u);
  EXPECT_EQ(PopAt(4), 0u);
}

TEST_F(QueueDisciplineTest, AgingLiftsLowSoItNeverStarves) {
  Push(1, Priority::kLow, "a", 0);
  Push(2, Priority::kHigh, "b", 25);
  // At t=25 the low request has waited 25 s: two classes up, it is "high" too,
  // and it arrived first.
  EXPECT_EQ(PopAt(25), 1u);
  EXPECT_EQ(PopAt(25), 2u);
}

TEST_F(QueueDisciplineTest, TenantsTakeTurnsWithinAClass) {
  for (uint64_t i = 1; i <= 4; ++i) Push(i, Priority::kNormal, "flood", 0);
  Push(10, Priority::kNormal, "other", 1);
  Push(11, Priority::kNormal, "other", 2);
  std::vector<uint64_t> order;
  for (int i = 0; i < 6; ++i) order.push_back(PopAt(3));
  EXPECT_EQ(order, (std::vector<uint64_t>{1, 10, 2, 11, 3, 4}));
}

TEST_F(QueueDisciplineTest, RemoveAndCostBookkeeping) {
  Push(1, Priority::kNormal, "a", 0, 100);
  Push(2, Priority::kNormal, "a", 0, 50);
  EXPECT_EQ(q_.cost(), 150u);
  EXPECT_TRUE(q_.Remove(1));
  EXPECT_FALSE(q_.Remove(1));
  EXPECT_EQ(q_.cost(), 50u);
  EXPECT_EQ(q_.size(), 1u);
  EXPECT_EQ(q_.CountOf(Priority::kNormal), 1u);
  EXPECT_EQ(PopAt(0), 2u);
  EXPECT_EQ(q_.cost(), 0u);
}

TEST(PriorityTest, Parses) {
  EXPECT_EQ(*ParsePriority("HIGH"), Priority::kHigh);
  EXPECT_EQ(*ParsePriority("low"), Priority::kLow);
  EXPECT_FALSE(ParsePriority("urgent").ok());
}

}  // namespace
}  // namespace zest::scheduler
