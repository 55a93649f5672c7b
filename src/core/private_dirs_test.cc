#include "core/private_dirs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>

#include "core/testing/temp_dir.h"

namespace zest {
namespace {

namespace fs = std::filesystem;

fs::perms Mode(const fs::path& p) { return fs::status(p).permissions() & fs::perms::all; }

TEST(PrivateDirs, EveryCreatedLevelIs0700EvenWithAPermissiveUmask) {
  zest::testing::TempDir tmp("private-dirs");
  const fs::path& root = tmp.path();
  fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  mode_t old = umask(0);
  Status st = CreatePrivateDirectories(root / "a" / "b" / "c");
  umask(old);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const fs::path& dir : {root / "a", root / "a/b", root / "a/b/c"}) {
    EXPECT_EQ(Mode(dir), fs::perms::owner_all) << dir;
  }
  // An existing directory keeps its mode.
  EXPECT_NE(Mode(root), fs::perms::owner_all);
  EXPECT_TRUE(CreatePrivateDirectories(root / "a").ok());
  // A file in the way is an error naming the path.
  std::FILE* f = std::fopen((root / "file").c_str(), "w");
  std::fclose(f);
  st = CreatePrivateDirectories(root / "file" / "x");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find((root / "file").string()), std::string::npos) << st.message();
}

}  // namespace
}  // namespace zest
