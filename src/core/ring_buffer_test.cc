#include "core/ring_buffer.h"

#include <gtest/gtest.h>

namespace zest {
namespace {

TEST(LineRingTest, KeepsLastLinesAcrossSplitWrites) {
  LineRing ring(2);
  ring.Append("one\ntw");
  ring.Append("o\r\nthree\nfou");
  EXPECT_EQ(ring.Tail(5), (std::vector<std::string>{"two", "three"}));
  ring.Flush();
  EXPECT_EQ(ring.Tail(1), (std::vector<std::string>{"fou"}));
}

TEST(LineRingTest, SinceFollowsNewLinesAndSkipsDroppedOnes) {
  LineRing ring(3);
  uint64_t next = 0;
  EXPECT_TRUE(ring.Since(0, &next).empty());
  EXPECT_EQ(next, 0u);
  ring.Append("a\nb\n");
  EXPECT_EQ(ring.Since(next, &next), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(next, 2u);
  ring.Append("c\nd\ne\nf\n");  // a..c fall out
  EXPECT_EQ(ring.Since(next, &next), (std::vector<std::string>{"d", "e", "f"}));
  EXPECT_EQ(next, 6u);
  EXPECT_TRUE(ring.Since(next, &next).empty());
}

}  // namespace
}  // namespace zest
