#include "scheduler/slot_dirs.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

TEST(SlotDirsTest, APerModelDirectoryAndTheHandoffWhereThatLeavesNone) {
  const SlotDirs both("/z/slots", "/z/handoff");
  EXPECT_EQ(both.Saved("org/model:Q4"), "/z/slots/org_model_Q4");
  EXPECT_EQ(both.ForEngine("org/model:Q4", /*replica=*/false), "/z/slots/org_model_Q4");
  EXPECT_EQ(both.ForEngine("org/model:Q4", /*replica=*/true), "/z/handoff");

  const SlotDirs kept_only("/z/slots", "");
  EXPECT_EQ(kept_only.ForEngine("m", /*replica=*/true), "");

  const SlotDirs handoff_only("", "/z/handoff");
  EXPECT_EQ(handoff_only.Saved("m"), "");
  EXPECT_EQ(handoff_only.ForEngine("m", /*replica=*/false), "/z/handoff");

  const SlotDirs neither("", "");
  EXPECT_EQ(neither.ForEngine("m", /*replica=*/false), "");
}

}  // namespace
}  // namespace zest::scheduler
