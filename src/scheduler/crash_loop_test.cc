#include "scheduler/crash_loop.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

using namespace std::chrono_literals;
using Clock = CrashLoopBreaker::Clock;

TEST(CrashLoopBreaker, TripsAtTheLimitWithinTheWindow) {
  CrashLoopBreaker b(3, 60s, 30s);
  Clock::time_point t0 = Clock::now();
  EXPECT_FALSE(b.RecordFailure("m", "exit 1", t0));
  EXPECT_FALSE(b.RecordFailure("m", "exit 1", t0 + 10s));
  EXPECT_TRUE(b.Check("m", t0 + 10s).ok());
  EXPECT_TRUE(b.RecordFailure("m", "unknown flag --x", t0 + 20s));
  Status held = b.Check("m", t0 + 21s);
  ASSERT_FALSE(held.ok());
  EXPECT_EQ(held.code(), ErrorCode::kEngineFailed);
  EXPECT_NE(held.message().find("failed 3 times within 60 s"), std::string::npos) << held.message();
  EXPECT_NE(held.message().find("another 29 s"), std::string::npos) << held.message();
  EXPECT_NE(held.message().find("unknown flag --x"), std::string::npos);
  EXPECT_TRUE(b.Check("other", t0 + 21s).ok()) << "per model";
  EXPECT_TRUE(b.Check("m", t0 + 50s).ok()) << "after the cooldown";
  EXPECT_FALSE(b.RecordFailure("m", "exit 1", t0 + 51s)) << "a fresh count after the cooldown";
}

TEST(CrashLoopBreaker, FailuresOutsideTheWindowDoNotCount) {
  CrashLoopBreaker b(3, 60s, 30s);
  Clock::time_point t0 = Clock::now();
  EXPECT_FALSE(b.RecordFailure("m", "x", t0));
  EXPECT_FALSE(b.RecordFailure("m", "x", t0 + 50s));
  EXPECT_FALSE(b.RecordFailure("m", "x", t0 + 100s));  // the first one is out of the window
  EXPECT_TRUE(b.Check("m", t0 + 100s).ok());
}

TEST(CrashLoopBreaker, ZeroLimitNeverTrips) {
  CrashLoopBreaker b(0, 60s, 30s);
  Clock::time_point t0 = Clock::now();
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(b.RecordFailure("m", "x", t0));
  EXPECT_TRUE(b.Check("m", t0).ok());
}

}  // namespace
}  // namespace zest::scheduler
