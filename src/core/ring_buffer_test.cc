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

}  // namespace
}  // namespace zest
