#include "scheduler/slot_dirs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/testing/temp_dir.h"
#include "scheduler/engine_starter.h"

namespace zest::scheduler {
namespace {

TEST(SlotDirsTest, APerModelDirectoryAndTheHandoffWhereThatLeavesNone) {
  const SlotDirs both("/z/slots", "/z/handoff");
  EXPECT_EQ(both.Saved("org/model:Q4"), "/z/slots/org_2fmodel_3aQ4");
  EXPECT_EQ(both.ForEngine("org/model:Q4", /*replica=*/false), "/z/slots/org_2fmodel_3aQ4");
  EXPECT_EQ(both.ForEngine("org/model:Q4", /*replica=*/true), "/z/handoff");

  const SlotDirs kept_only("/z/slots", "");
  EXPECT_EQ(kept_only.ForEngine("m", /*replica=*/true), "");

  const SlotDirs handoff_only("", "/z/handoff");
  EXPECT_EQ(handoff_only.Saved("m"), "");
  EXPECT_EQ(handoff_only.ForEngine("m", /*replica=*/false), "/z/handoff");

  const SlotDirs neither("", "");
  EXPECT_EQ(neither.ForEngine("m", /*replica=*/false), "");
}

// Issue 52, 14: "a/b", "a:b" and "a_b" once shared one directory (their
// slot and session files mixed, and removing one removed the others').
TEST(SlotDirsTest, NoTwoModelNamesShareADirectory) {
  const std::vector<std::string> names = {"a/b", "a:b",     "a_b", "a_2fb", "a.b", ".",
                                          "..",  ".hidden", "a b", "a@b",   "ab"};
  std::set<std::string> files;
  for (const std::string& name : names) {
    const std::string file = SafeFileName(name);
    EXPECT_TRUE(files.insert(file).second) << name << " -> " << file;
    EXPECT_NE(file, ".");
    EXPECT_NE(file, "..");
    EXPECT_FALSE(file.starts_with(".")) << file;
    EXPECT_EQ(file.find('/'), std::string::npos) << file;
  }
  EXPECT_EQ(SafeFileName("qwen3-0.6b"), "qwen3-0.6b");  // plain names stay as they were
}

// A directory made under the old name is the model's still: renamed.
TEST(SlotDirsTest, AnOldNamedDirectoryMovesToTheNewName) {
  zest::testing::TempDir root;
  std::filesystem::create_directories(root.path() / "org_model_Q4");
  std::ofstream(root.path() / "org_model_Q4" / "session-x.bin") << "kv";
  const SlotDirs dirs(root.path(), "");
  const std::filesystem::path dir = dirs.Saved("org/model:Q4");
  EXPECT_EQ(dir, root.path() / "org_2fmodel_3aQ4");
  EXPECT_TRUE(std::filesystem::exists(dir / "session-x.bin"));
  EXPECT_FALSE(std::filesystem::exists(root.path() / "org_model_Q4"));
  // A plain name has nothing to move.
  EXPECT_EQ(dirs.Saved("tiny"), root.path() / "tiny");
}

}  // namespace
}  // namespace zest::scheduler
