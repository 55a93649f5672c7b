#include "http/request_id.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace zest::http {
namespace {

TEST(RequestIdTest, KeepsASafeClientId) {
  EXPECT_EQ(RequestIdFor("trace-42:a.b_C"), "trace-42:a.b_C");
  std::string longest(kMaxRequestIdLength, 'x');
  EXPECT_EQ(RequestIdFor(longest), longest);
}

TEST(RequestIdTest, ReplacesUnsafeOrOverlongIds) {
  for (const std::string& bad :
       {std::string(""), std::string("a b"), std::string("x\r\nSet-Cookie: y"), std::string("a\"b"),
        std::string("[req:x]"), std::string(kMaxRequestIdLength + 1, 'x')}) {
    std::string id = RequestIdFor(bad);
    EXPECT_NE(id, bad);
    EXPECT_EQ(id.size(), 16u);
    EXPECT_TRUE(IsValidRequestId(id)) << id;
  }
}

TEST(RequestIdTest, GeneratedIdsDiffer) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(RequestIdFor(""));
  EXPECT_EQ(ids.size(), 1000u);
}

// The attack on ids from a Mersenne Twister (what zest used before): 312
// consecutive 64-bit outputs give away its state, so the next id can be
// computed. With ids from the kernel's random source the guess fails.
uint64_t IdBits(const std::string& id) {  // the old encoding: lowest nibble first
  uint64_t bits = 0;
  for (std::size_t i = id.size(); i-- > 0;) {
    const char c = id[i];
    bits = (bits << 4) | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return bits;
}

uint64_t Untemper(uint64_t z) {  // std::mt19937_64's tempering, undone step by step
  uint64_t y = z ^ (z >> 43);
  y ^= (y << 37) & 0xfff7eee000000000ULL;
  uint64_t r = y;
  for (int i = 0; i < 4; ++i) r = y ^ ((r << 17) & 0x71d67fffeda60000ULL);
  uint64_t x = r;
  for (int i = 0; i < 3; ++i) x = r ^ ((x >> 29) & 0x5555555555555555ULL);
  return x;
}

uint64_t Temper(uint64_t x) {
  x ^= (x >> 29) & 0x5555555555555555ULL;
  x ^= (x << 17) & 0x71d67fffeda60000ULL;
  x ^= (x << 37) & 0xfff7eee000000000ULL;
  return x ^ (x >> 43);
}

TEST(RequestIdTest, TheNextIdCannotBeComputedFromEarlierOnes) {
  constexpr std::size_t kN = 312, kM = 156;
  std::vector<uint64_t> state;
  for (std::size_t i = 0; i < kN; ++i) state.push_back(Untemper(IdBits(RequestIdFor(""))));
  // The generator's recurrence gives the word after the 312 seen.
  const uint64_t upper = ~((1ULL << 31) - 1), lower = (1ULL << 31) - 1;
  const uint64_t mixed = (state[0] & upper) | (state[1] & lower);
  const uint64_t next =
      state[kM] ^ (mixed >> 1) ^ ((state[1] & 1) != 0 ? 0xb5026f5aa96619e9ULL : 0);
  EXPECT_NE(IdBits(RequestIdFor("")), Temper(next));
}

}  // namespace
}  // namespace zest::http
