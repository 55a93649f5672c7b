// FileMemo on real files: an unchanged file's answer is not computed again;
// a rewritten one, a touched one and another path are.
#include "core/file_memo.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

class FileMemoTest : public ::testing::Test {
 protected:
  // The memo's answer for `path`: how many computations there had been when
  // it was first computed for the file as it is now.
  int Answer(const fs::path& path) {
    std::optional<FileIdentity> id = IdentityOf(path);
    EXPECT_TRUE(id.has_value()) << path;
    return memo_.Get(*id, [&] { return ++computed_; });
  }

  zest::testing::TempDir tmp_{"file-memo"};
  FileMemo<FileIdentity, int> memo_{8};
  int computed_ = 0;
};

TEST_F(FileMemoTest, AnUnchangedFileIsComputedOnce) {
  const fs::path file = tmp_.path() / "a.gguf";
  Write(file, "one");
  EXPECT_EQ(Answer(file), 1);
  EXPECT_EQ(Answer(file), 1);
  EXPECT_EQ(computed_, 1);
}

TEST_F(FileMemoTest, ARewrittenOrTouchedFileIsAnother) {
  const fs::path file = tmp_.path() / "a.gguf";
  Write(file, "one");
  EXPECT_EQ(Answer(file), 1);
  Write(file, "longer");  // another size
  EXPECT_EQ(Answer(file), 2);
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));  // same size
  EXPECT_EQ(Answer(file), 3);
  EXPECT_EQ(Answer(tmp_.path() / "a.gguf"), 3);
}

TEST_F(FileMemoTest, AnotherPathIsAnotherFile) {
  Write(tmp_.path() / "a.gguf", "same");
  Write(tmp_.path() / "b.gguf", "same");
  EXPECT_EQ(Answer(tmp_.path() / "a.gguf"), 1);
  EXPECT_EQ(Answer(tmp_.path() / "b.gguf"), 2);
}

TEST_F(FileMemoTest, PastItsBoundItStartsOver) {
  for (int i = 0; i < 8; ++i) Write(tmp_.path() / std::to_string(i), "x");
  for (int i = 0; i < 8; ++i) Answer(tmp_.path() / std::to_string(i));
  EXPECT_EQ(Answer(tmp_.path() / "0"), 1);  // eight fit
  Write(tmp_.path() / "8", "x");
  EXPECT_EQ(Answer(tmp_.path() / "8"), 9);  // the ninth clears the rest
  EXPECT_EQ(Answer(tmp_.path() / "0"), 10);
}

TEST(IdentityOfTest, AMissingFileHasNone) {
  EXPECT_FALSE(IdentityOf("/no/such/file.gguf").has_value());
}

}  // namespace
}  // namespace zest
