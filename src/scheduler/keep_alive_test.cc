#include "scheduler/keep_alive.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

using namespace std::chrono_literals;
using Clock = Residency::Clock;

TEST(Residency, ExpiresAfterTheDefaultOnceIdle) {
  Residency r(10s);
  Clock::time_point t0 = Clock::now();
  r.Begin("a");
  EXPECT_TRUE(r.Expired(t0 + 1h).empty()) << "busy models never expire";
  r.End("a", std::nullopt, t0);
  EXPECT_TRUE(r.Expired(t0 + 9s).empty());
  EXPECT_EQ(r.Expired(t0 + 10s), std::vector<std::string>{"a"});
  EXPECT_EQ(r.ExpiresAt("a"), t0 + 10s);
}

TEST(Residency, TheLatestRequestDecides) {
  Residency r(10s);
  Clock::time_point t0 = Clock::now();
  r.Begin("a");
  r.End("a", KeepAlive(std::nullopt), t0);  // keep_alive -1
  EXPECT_TRUE(r.Expired(t0 + 24h).empty());
  r.Begin("a");
  r.End("a", KeepAlive(0ms), t0 + 1s);  // keep_alive 0
  EXPECT_EQ(r.Expired(t0 + 1s), std::vector<std::string>{"a"});
}

TEST(Residency, OverlappingRequestsKeepTheModelBusyUntilTheLastEnds) {
  Residency r(0s);
  Clock::time_point t0 = Clock::now();
  r.Begin("a");
  r.Begin("a");
  r.End("a", std::nullopt, t0);
  EXPECT_TRUE(r.Expired(t0 + 1h).empty());
  EXPECT_EQ(r.ExpiresAt("a"), std::nullopt);
  r.End("a", std::nullopt, t0);
  EXPECT_EQ(r.Expired(t0), std::vector<std::string>{"a"});
}

TEST(Residency, SetAndForget) {
  Residency r(10s);
  Clock::time_point t0 = Clock::now();
  r.Set("a", 1s, t0);
  EXPECT_EQ(r.Expired(t0 + 1s), std::vector<std::string>{"a"});
  r.Forget("a");
  EXPECT_TRUE(r.Expired(t0 + 1h).empty());
  EXPECT_EQ(r.ExpiresAt("a"), std::nullopt);
  {
    ResidencyHold hold(&r, "b", KeepAlive(2s));
    EXPECT_TRUE(r.Expired(t0 + 1h).empty());
  }
  EXPECT_TRUE(r.ExpiresAt("b").has_value());
}

}  // namespace
}  // namespace zest::scheduler
