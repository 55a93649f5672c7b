#include "scheduler/crash_loop.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

using namespace std::chrono_literals;
using Clock = CrashLoopBreaker::Clock;

TEST(CrashLoopBreaker, HoldsOffTwiceAsLongAfterEachFailureInARow) {
  CrashLoopBreaker b(1s, 60s, 60s);
  Clock::time_point t = Clock::now();
  EXPECT_EQ(b.RecordFailure("m", "exit 1", t), 1s);
  Status held = b.Check("m", t + 100ms);
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(held.code(), ErrorCode::kEngineFailed);
  EXPECT_NE(held.message().find("failed 1 time;"), std::string::npos) << held.message();
  EXPECT_NE(held.message().find("another 0.9 s"), std::string::npos) << held.message();
  EXPECT_NE(held.message().find("exit 1"), std::string::npos);
  EXPECT_TRUE(b.Check("m", t + 1s).ok()) << "the hold is over";
  EXPECT_TRUE(b.Check("other", t).ok()) << "per model";

  t += 1s;
  EXPECT_EQ(b.RecordFailure("m", "exit 1", t), 2s);
  t += 2s;
  EXPECT_EQ(b.RecordFailure("m", "unknown flag --x", t), 4s);
  held = b.Check("m", t + 1s);
  ASSERT_FALSE(held.ok());
  EXPECT_NE(held.message().find("failed 3 times in a row; not restarting it for another 3 s"),
            std::string::npos)
      << held.message();
  EXPECT_NE(held.message().find("unknown flag --x"), std::string::npos);
  for (int i = 0; i < 10; ++i) t += b.RecordFailure("m", "x", t);
  EXPECT_EQ(b.RecordFailure("m", "x", t), 60s) << "capped at max";
}

TEST(CrashLoopBreaker, AFailureLongAfterTheLastHoldStartsAgainFromTheInitialHold) {
  CrashLoopBreaker b(1s, 60s, 60s);
  Clock::time_point t = Clock::now();
  EXPECT_EQ(b.RecordFailure("m", "x", t), 1s);
  EXPECT_EQ(b.RecordFailure("m", "x", t + 30s), 2s) << "within the window of the last hold";
  EXPECT_EQ(b.RecordFailure("m", "x", t + 30s + 2s + 61s), 1s) << "a window after the hold ended";
}

TEST(CrashLoopBreaker, ForgetClearsTheHold) {
  CrashLoopBreaker b(1s, 60s, 60s);
  Clock::time_point t = Clock::now();
  b.RecordFailure("m", "x", t);
  b.RecordFailure("m", "x", t + 1s);
  b.Forget("m");
  EXPECT_TRUE(b.Check("m", t + 1s).ok());
  EXPECT_EQ(b.RecordFailure("m", "x", t + 2s), 1s);
}

TEST(CrashLoopBreaker, ZeroInitialHoldNeverHolds) {
  CrashLoopBreaker b(0s, 60s, 60s);
  Clock::time_point t = Clock::now();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(b.RecordFailure("m", "x", t), 0s);
  EXPECT_TRUE(b.Check("m", t).ok());
}

}  // namespace
}  // namespace zest::scheduler
