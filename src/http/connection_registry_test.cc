#include "http/connection_registry.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

namespace zest::http {
namespace {

// The registry's clock in these tests: each connection added is one
// millisecond younger than the one before, so "longest idle" is exact.
struct ManualClock {
  ConnectionRegistry::Clock::time_point now{};
  std::function<ConnectionRegistry::Clock::time_point()> Fn() {
    return [this] { return now; };
  }
};

// Registers a connection whose abort records its id in `aborted`; then the
// clock moves on.
std::uint64_t AddOne(
    ConnectionRegistry& registry, ManualClock& clock, const std::string& address,
    std::set<int>& aborted, int tag,
    ConnectionRegistry::AddResult expected = ConnectionRegistry::AddResult::kAdded) {
  std::uint64_t id = 0;
  EXPECT_EQ(registry.Add(
                address, [&aborted, tag] { aborted.insert(tag); }, &id),
            expected)
      << tag;
  clock.now += std::chrono::milliseconds(1);
  return id;
}

TEST(ConnectionRegistry, OverTheAddressLimitTheLongestIdleGivesWay) {
  ManualClock clock;
  ConnectionRegistry registry({3, 100}, clock.Fn());
  std::set<int> aborted;
  std::uint64_t first = AddOne(registry, clock, "10.0.0.1", aborted, 1);
  AddOne(registry, clock, "10.0.0.1", aborted, 2);
  AddOne(registry, clock, "10.0.0.1", aborted, 3);
  AddOne(registry, clock, "10.0.0.1", aborted, 4);  // closes 1, the longest idle
  EXPECT_EQ(aborted, std::set<int>{1});
  EXPECT_EQ(registry.CountFrom("10.0.0.1"), 3);
  registry.Remove(first);  // its coroutine ends later: counted once only
  EXPECT_EQ(registry.CountFrom("10.0.0.1"), 3);
  // Another address is not touched.
  AddOne(registry, clock, "10.0.0.2", aborted, 5);
  EXPECT_EQ(aborted, std::set<int>{1});
}

// Finding 3 of issue 28: long-lived streams (events, logs followed) held
// every connection an address may have, and its plain requests got 429.
// Streams count against a limit of their own; the address's plain
// connections keep their room.
TEST(ConnectionRegistry, StreamsHaveTheirOwnLimitAndLeavePlainRequestsRoom) {
  ManualClock clock;
  ConnectionRegistry registry({.per_address = 2, .total = 100, .streams_per_address = 3},
                              clock.Fn());
  std::set<int> aborted;
  std::vector<std::uint64_t> streams;
  for (int tag = 1; tag <= 3; ++tag) {
    std::uint64_t id = AddOne(registry, clock, "127.0.0.1", aborted, tag);
    registry.SetBusy(id, true);
    ASSERT_TRUE(registry.SetStreaming(id, true)) << tag;
    streams.push_back(id);
  }
  EXPECT_EQ(registry.StreamsFrom("127.0.0.1"), 3);
  EXPECT_EQ(registry.CountFrom("127.0.0.1"), 0);
  // Plain requests from the same address still find room.
  AddOne(registry, clock, "127.0.0.1", aborted, 4);
  std::uint64_t fourth_stream = AddOne(registry, clock, "127.0.0.1", aborted, 5);
  EXPECT_TRUE(aborted.empty());
  // A fourth stream is over the stream limit: refused, still a plain connection.
  registry.SetBusy(fourth_stream, true);
  EXPECT_FALSE(registry.SetStreaming(fourth_stream, true));
  EXPECT_EQ(registry.StreamsFrom("127.0.0.1"), 3);
  EXPECT_EQ(registry.CountFrom("127.0.0.1"), 2);
  // A stream that ends gives its place back at once.
  registry.Remove(streams[0]);
  EXPECT_EQ(registry.StreamsFrom("127.0.0.1"), 2);
  EXPECT_TRUE(registry.SetStreaming(fourth_stream, true));
  // A stream's connection kept alive after it is a plain connection again.
  registry.SetStreaming(streams[1], false);
  EXPECT_EQ(registry.StreamsFrom("127.0.0.1"), 2);
  EXPECT_EQ(registry.CountFrom("127.0.0.1"), 2);
}

TEST(ConnectionRegistry, BusyConnectionsAreNeverClosedForRoom) {
  ManualClock clock;
  ConnectionRegistry registry({2, 100}, clock.Fn());
  std::set<int> aborted;
  std::uint64_t a = AddOne(registry, clock, "10.0.0.1", aborted, 1);
  std::uint64_t b = AddOne(registry, clock, "10.0.0.1", aborted, 2);
  registry.SetBusy(a, true);
  registry.SetBusy(b, true);
  AddOne(registry, clock, "10.0.0.1", aborted, 3, ConnectionRegistry::AddResult::kTooMany);
  EXPECT_TRUE(aborted.empty());
  registry.SetBusy(b, false);  // its handler finished: idle again
  AddOne(registry, clock, "10.0.0.1", aborted, 4);
  EXPECT_EQ(aborted, std::set<int>{2});
}

// Issue 52, MEDIUM 7: one key's requests, waiting in a queue from many
// addresses, could hold every connection.
TEST(ConnectionRegistry, OneKeyHoldsAtMostHalfTheTotalBusy) {
  ManualClock clock;
  ConnectionRegistry registry({0, 8}, clock.Fn());
  std::set<int> aborted;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 6; ++i) {
    ids.push_back(AddOne(registry, clock, "10.0.0." + std::to_string(i), aborted, i));
  }
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(registry.SetBusyFor(ids[i], "mallory")) << i;
  EXPECT_FALSE(registry.SetBusyFor(ids[4], "mallory"));
  EXPECT_EQ(registry.BusyFor("mallory"), 4);
  EXPECT_TRUE(registry.SetBusyFor(ids[4], "alice"));  // another key still gets in
  registry.SetBusy(ids[0], false);                    // one of mallory's requests ended
  EXPECT_TRUE(registry.SetBusyFor(ids[5], "mallory"));
  registry.Remove(ids[1]);  // and a connection closed
  EXPECT_EQ(registry.BusyFor("mallory"), 3);
  EXPECT_EQ(registry.BusyFor("alice"), 1);
  EXPECT_TRUE(aborted.empty());
}

TEST(ConnectionRegistry, OverTheTotalTheMostCrowdedAddressGivesWay) {
  ManualClock clock;
  ConnectionRegistry registry({0, 8}, clock.Fn());  // one address may hold 6 of 8
  std::set<int> aborted;
  for (int i = 1; i <= 6; ++i) AddOne(registry, clock, "10.0.0.1", aborted, i);
  AddOne(registry, clock, "10.0.0.1", aborted, 7);  // its share is 6: closes 1
  EXPECT_EQ(aborted, std::set<int>{1});
  AddOne(registry, clock, "10.0.0.2", aborted, 8);
  AddOne(registry, clock, "10.0.0.3", aborted, 9);  // 8 in all: room from the crowded one
  AddOne(registry, clock, "10.0.0.4", aborted, 10);
  EXPECT_EQ(aborted, (std::set<int>{1, 2}));
  EXPECT_EQ(registry.CountFrom("10.0.0.4"), 1);
  EXPECT_EQ(registry.CountFrom("10.0.0.1"), 5);
}

TEST(ConnectionRegistry, AbortAllClosesEverythingAndRefusesNewOnes) {
  ManualClock clock;
  ConnectionRegistry registry({256, 1024}, clock.Fn());
  std::set<int> aborted;
  AddOne(registry, clock, "a", aborted, 1);
  AddOne(registry, clock, "b", aborted, 2);
  registry.AbortAll();
  EXPECT_EQ(aborted, (std::set<int>{1, 2}));
  AddOne(registry, clock, "c", aborted, 3, ConnectionRegistry::AddResult::kStopping);
}

// Issue 52, MEDIUM 7: one client holds at most half the total in streams,
// and streams in all at most three quarters, so a plain request (a health
// check) always finds room, however the streams are spread.
TEST(ConnectionRegistry, StreamsLeaveAQuarterOfTheTotalForPlainRequests) {
  ConnectionRegistry registry({.per_address = 100, .total = 8, .streams_per_address = 64});
  auto stream_from = [&](const std::string& address) {
    std::uint64_t id = 0;
    EXPECT_EQ(registry.Add(
                  address, [] {}, &id),
              ConnectionRegistry::AddResult::kAdded);
    registry.SetBusy(id, true);
    if (registry.SetStreaming(id, true)) return true;
    registry.Remove(id);  // refused: the client is answered 429 and goes
    return false;
  };
  int a = 0, b = 0;
  for (int i = 0; i < 8; ++i) a += stream_from("a") ? 1 : 0;
  EXPECT_EQ(a, 4);  // half of 8
  EXPECT_EQ(registry.StreamsFrom("a"), 4);
  for (int i = 0; i < 8; ++i) b += stream_from("b") ? 1 : 0;
  EXPECT_EQ(b, 2);  // 6 streams in all: three quarters of 8
}

}  // namespace
}  // namespace zest::http
