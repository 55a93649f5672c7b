#include "scheduler/slot_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/testing/temp_dir.h"

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SlotFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "prefill");
    fs::create_directories(dir_ / "decode");
    std::ofstream(dir_ / "secret") << "keys";
  }
  zest::testing::TempDir tmp_{"slots"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(SlotFilesTest, MovesTheFile) {
  std::ofstream(dir_ / "prefill" / "h.bin") << "kv";
  ASSERT_TRUE(MoveSlotFile(dir_ / "prefill", dir_ / "decode", "h.bin").ok());
  EXPECT_EQ(Read(dir_ / "decode" / "h.bin"), "kv");
  EXPECT_FALSE(fs::exists(dir_ / "prefill" / "h.bin"));
}

// A link the decode engine put where the file is going is replaced, not
// written through: the file it points to keeps its content.
TEST_F(SlotFilesTest, NeverWritesThroughALinkAtTheDestination) {
  std::ofstream(dir_ / "prefill" / "h.bin") << "kv";
  fs::create_symlink(dir_ / "secret", dir_ / "decode" / "h.bin");
  ASSERT_TRUE(MoveSlotFile(dir_ / "prefill", dir_ / "decode", "h.bin").ok());
  EXPECT_EQ(Read(dir_ / "secret"), "keys");
  EXPECT_FALSE(fs::is_symlink(dir_ / "decode" / "h.bin"));
  EXPECT_EQ(Read(dir_ / "decode" / "h.bin"), "kv");
}

// A link the prefill engine put in place of its file is not moved: the
// decode engine must not be handed whatever it points to.
TEST_F(SlotFilesTest, RefusesALinkAsTheSource) {
  fs::create_symlink(dir_ / "secret", dir_ / "prefill" / "h.bin");
  Status moved = MoveSlotFile(dir_ / "prefill", dir_ / "decode", "h.bin");
  EXPECT_FALSE(moved.ok());
  EXPECT_NE(moved.message().find("not a regular file"), std::string::npos) << moved.message();
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "decode" / "h.bin")));
}

// The same across file systems (/tmp and /dev/shm, where they differ):
// the copy creates the file anew and never opens the link.
TEST_F(SlotFilesTest, CopiesAcrossFileSystemsWithoutFollowingLinks) {
  char tmpl[] = "/dev/shm/zest-slots-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) GTEST_SKIP() << "no /dev/shm here";
  const fs::path other = tmpl;
  std::ofstream(dir_ / "prefill" / "h.bin") << "kv";
  fs::create_symlink(dir_ / "secret", other / "h.bin");
  Status moved = MoveSlotFile(dir_ / "prefill", other, "h.bin");
  EXPECT_TRUE(moved.ok()) << moved.message();
  EXPECT_EQ(Read(dir_ / "secret"), "keys");
  EXPECT_FALSE(fs::is_symlink(other / "h.bin"));
  EXPECT_EQ(Read(other / "h.bin"), "kv");
  EXPECT_FALSE(fs::exists(dir_ / "prefill" / "h.bin"));
  fs::remove_all(other);
}

}  // namespace
}  // namespace zest::scheduler
