#include "core/random_hex.h"

#include <gtest/gtest.h>

#include <set>

namespace zest {
namespace {

TEST(RandomHexTest, HexOfTheLengthAskedEachDifferent) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = RandomHex(16);
    ASSERT_EQ(id.size(), 32u);
    ASSERT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(RandomHex(0), "");
  EXPECT_EQ(RandomHex(300).size(), 600u);  // more than one getrandom call may return
}

}  // namespace
}  // namespace zest
