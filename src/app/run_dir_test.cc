// RunDir (run_dir.h): a fresh private directory per run, gone with it.
#include "app/run_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

namespace zest::app {
namespace {

namespace fs = std::filesystem;

TEST(RunDir, AFreshPrivateDirectoryUnderTheBaseRemovedWithItsSockets) {
  auto base = RunDir::Create("/tmp");  // a base that exists: used as it is
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  fs::path path;
  {
    auto run = RunDir::Create((*base)->path());
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    path = (*run)->path();
    EXPECT_EQ(path.parent_path(), (*base)->path());
    EXPECT_TRUE(path.filename().string().starts_with("zest-")) << path;
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    auto second = RunDir::Create((*base)->path());
    ASSERT_TRUE(second.ok());
    EXPECT_NE((*second)->path(), path) << "each run gets its own";
    fs::create_directories(path / "engine-1");
    std::ofstream(path / "engine-1/engine.sock") << "";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(RunDir, WithoutItsBaseUsesTmp) {
  auto run = RunDir::Create("/nonexistent/run/user/1000");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ((*run)->path().parent_path(), fs::path("/tmp"));
}

}  // namespace
}  // namespace zest::app
