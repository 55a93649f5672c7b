#include "cli/table.h"

#include <gtest/gtest.h>

namespace zest::cli {
namespace {

TEST(TableTest, HumanUnits) {
  EXPECT_EQ(HumanBytes(0), "-");
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KB");
  EXPECT_EQ(HumanBytes(3ull << 30), "3.0 GB");
  EXPECT_EQ(HumanCount(494'032'768), "494M");
  EXPECT_EQ(HumanCount(1'500), "1.5K");
  EXPECT_EQ(HumanDuration(42), "42s");
  EXPECT_EQ(HumanDuration(3725), "1h2m");
}

}  // namespace
}  // namespace zest::cli
