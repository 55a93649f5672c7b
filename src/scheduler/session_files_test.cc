#include "scheduler/session_files.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

class SessionFilesTest : public ::testing::Test {
 protected:
  // A session file of `bytes` in `model`'s directory, last used `age` ago.
  fs::path Write(const std::string& model, const std::string& key, std::size_t bytes,
                 std::chrono::seconds age) {
    fs::create_directories(root_ / model);
    fs::path file = root_ / model / SessionFileName(key);
    std::ofstream(file) << std::string(bytes, 'k');
    fs::last_write_time(file, fs::file_time_type::clock::now() - age);
    return file;
  }
  zest::testing::TempDir tmp_{"sessions"};
  const fs::path root_ = tmp_.path();
};

TEST_F(SessionFilesTest, NamesOnlyHexKeys) {
  EXPECT_EQ(SessionFileName("0a1b"), "session-0a1b.bin");
  EXPECT_EQ(SessionFileName(""), "");
  EXPECT_EQ(SessionFileName("../x"), "");
  EXPECT_EQ(SessionFileName("ab/cd"), "");
}

TEST_F(SessionFilesTest, ListsRegularSessionFilesOnly) {
  Write("m", "aa", 10, std::chrono::seconds(0));
  std::ofstream(root_ / "m" / "slot-0.bin") << "slot";    // the slots' own
  std::ofstream(root_ / "m" / "session-zz.bin") << "zz";  // not a key
  fs::create_symlink(root_ / "m" / "session-aa.bin", root_ / "m" / "session-bb.bin");
  std::vector<SessionFile> files = ListSessionFiles(root_ / "m");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path.filename(), "session-aa.bin");
  EXPECT_EQ(files[0].bytes, 10u);
  EXPECT_EQ(SessionFilesIn(root_ / "m").bytes, 10u);
  EXPECT_EQ(SessionFilesIn(root_ / "none").files, 0);
}

TEST_F(SessionFilesTest, OverBudgetTakesTheLeastRecentlyUsedFirst) {
  const auto now = fs::file_time_type::clock::now();
  std::vector<SessionFile> files = {{"new", 100, now},
                                    {"old", 100, now - std::chrono::hours(2)},
                                    {"mid", 100, now - std::chrono::hours(1)}};
  EXPECT_EQ(OverBudget(files, 300), std::vector<fs::path>{});
  EXPECT_EQ(OverBudget(files, 250), std::vector<fs::path>{"old"});
  EXPECT_EQ(OverBudget(files, 100), (std::vector<fs::path>{"old", "mid"}));
  EXPECT_EQ(OverBudget(files, 0), (std::vector<fs::path>{"old", "mid", "new"}));
}

TEST_F(SessionFilesTest, AFileLargerThanTheBudgetGoesAloneHoweverRecent) {
  const auto now = fs::file_time_type::clock::now();
  std::vector<SessionFile> files = {{"huge", 500, now},
                                    {"old", 100, now - std::chrono::hours(2)},
                                    {"mid", 100, now - std::chrono::hours(1)}};
  EXPECT_EQ(OverBudget(files, 250), std::vector<fs::path>{"huge"});
}

TEST_F(SessionFilesTest, TrimsAcrossEveryModel) {
  fs::path a = Write("a", "01", 100, std::chrono::seconds(30));
  fs::path b = Write("b", "02", 100, std::chrono::seconds(10));
  fs::path c = Write("a", "03", 100, std::chrono::seconds(20));
  EXPECT_EQ(TrimSessionFiles(root_, 150), 2);
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(c));
  EXPECT_TRUE(fs::exists(b));
  EXPECT_EQ(TrimSessionFiles(root_ / "missing", 0), 0);
}

}  // namespace
}  // namespace zest::scheduler
