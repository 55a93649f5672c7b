#include "scheduler/slot_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <utility>

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

// Issue 52, 10: an engine can swap its slot or session file for a FIFO;
// opened for reading without O_NONBLOCK, that blocked the I/O thread until
// a writer came. The open returns at once and refuses what is not a
// regular file.
TEST_F(SlotFilesTest, AFifoInTheFilesPlaceIsRefusedWithoutWaiting) {
  const fs::path fifo = dir_ / "prefill" / "h.bin";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto opened = std::async(std::launch::async, [&] {
    const int fd = OpenEngineFile(fifo, O_RDONLY);
    return std::pair<int, int>(fd, errno);  // errno is the opening thread's
  });
  const bool returned = opened.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!returned) {  // unblock the open so that the test ends, then fail
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) ::close(writer);
  }
  ASSERT_TRUE(returned) << "the open waited for a writer";
  const auto [fd, error] = opened.get();
  if (fd >= 0) ::close(fd);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(error, EINVAL);

  // A regular file opens, and reads block as usual (O_NONBLOCK cleared).
  std::ofstream(dir_ / "decode" / "r.bin") << "kv";
  const int regular = OpenEngineFile(dir_ / "decode" / "r.bin", O_RDONLY);
  ASSERT_GE(regular, 0);
  EXPECT_EQ(::fcntl(regular, F_GETFL) & O_NONBLOCK, 0);
  ::close(regular);
  // A link is not followed.
  fs::create_symlink(dir_ / "secret", dir_ / "decode" / "l.bin");
  EXPECT_EQ(OpenEngineFile(dir_ / "decode" / "l.bin", O_RDONLY), -1);
}

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
