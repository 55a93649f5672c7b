#include "models/hf_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "core/testing/temp_dir.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";
const std::string kCommit2 = "89abcdef0123456789abcdef0123456789abcdef";
const std::string kShaA(64, 'a');
const std::string kShaB(64, 'b');

int Mode(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return static_cast<int>(st.st_mode & 0777);
}

class HfStoreTest : public ::testing::Test {
 protected:
  // Writes a repo the way huggingface-cli leaves it: blobs named by sha,
  // relative symlinks from the snapshot, refs/main with the commit.
  void WriteForeignRepo(const std::string& dir, const std::string& commit,
                        const std::map<std::string, std::string>& path_to_sha) {
    fs::path repo = root_ / dir;
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "refs");
    std::ofstream(repo / "refs/main") << commit;
    for (const auto& [path, sha] : path_to_sha) {
      std::ofstream(repo / "blobs" / sha) << "contents of " << sha;
      fs::path link = repo / "snapshots" / commit / path;
      fs::create_directories(link.parent_path());
      std::string up = "../../";
      for (char c : path) up += c == '/' ? "../" : "";
      fs::create_symlink(up + "blobs/" + sha, link);
    }
  }

  zest::testing::TempDir tmp_{"hfstore"};
  const fs::path root_ = tmp_.path();
};

TEST(HfStoreNames, ValidatesRepoIds) {
  EXPECT_TRUE(HfStore::ValidRepoId("unsloth/Qwen3-8B-GGUF"));
  EXPECT_TRUE(HfStore::ValidRepoId("ggerganov/whisper.cpp"));
  for (const char* bad : {"", "noslash", "a/b/c", "../x", "a/..", "./b", "a/", "/b", "a b/c",
                          "a/b\\c", "org--x/name", "org/na--me", "a/b;rm"}) {
    EXPECT_FALSE(HfStore::ValidRepoId(bad)) << bad;
  }
}

TEST(HfStoreNames, ValidatesPathsShasAndCommits) {
  EXPECT_TRUE(HfStore::ValidRepoPath("model.gguf"));
  EXPECT_TRUE(HfStore::ValidRepoPath("Q4_K_M/model-00001-of-00002.gguf"));
  for (const char* bad :
       {"", "../x", "/etc/passwd", "a/../b", "a//b", "./a", "a/.", "a\\b", "a/"}) {
    EXPECT_FALSE(HfStore::ValidRepoPath(bad)) << bad;
  }
  EXPECT_FALSE(HfStore::ValidRepoPath(std::string("a\0b", 3)));
  EXPECT_TRUE(HfStore::ValidSha256(kShaA));
  EXPECT_FALSE(HfStore::ValidSha256(std::string(64, 'A')));
  EXPECT_FALSE(HfStore::ValidSha256(std::string(63, 'a')));
  EXPECT_FALSE(HfStore::ValidSha256("../" + std::string(61, 'a')));
  EXPECT_TRUE(HfStore::ValidCommit(kCommit));
  EXPECT_TRUE(HfStore::ValidCommit(kShaA));
  EXPECT_FALSE(HfStore::ValidCommit("main"));
  EXPECT_FALSE(HfStore::ValidCommit(std::string(39, 'a')));
}

TEST_F(HfStoreTest, ListsAForeignLayoutThroughRelativeSymlinks) {
  WriteForeignRepo("models--org--repo-GGUF", kCommit,
                   {{"m-Q4_K_M.gguf", kShaA}, {"sub/m-Q8_0.gguf", kShaB}, {"README.md", kShaB}});
  fs::create_directories(root_ / "datasets--org--data/snapshots" / kCommit);
  std::ofstream(root_ / "datasets--org--data/snapshots" / kCommit / "x.gguf") << "no";
  HfStore store(root_);
  std::vector<StoreFile> files = store.ListModelFiles();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].repo, "org/repo-GGUF");
  EXPECT_EQ(files[0].commit, kCommit);
  EXPECT_EQ(files[0].path, "m-Q4_K_M.gguf");
  EXPECT_EQ(files[0].size, std::string("contents of " + kShaA).size());
  EXPECT_EQ(files[1].path, "sub/m-Q8_0.gguf");
  EXPECT_EQ(store.ReadRef("org/repo-GGUF", "main"), kCommit);
  EXPECT_EQ(store.ReadRef("org/repo-GGUF", "../../x"), std::nullopt);
  ASSERT_TRUE(store.FindFile("org/repo-GGUF", "README.md").has_value());
  EXPECT_FALSE(store.FindFile("org/repo-GGUF", "../README.md").has_value());
}

TEST_F(HfStoreTest, IgnoresSymlinksThatLeaveTheRepo) {
  WriteForeignRepo("models--org--evil", kCommit, {{"ok.gguf", kShaA}});
  fs::path outside = root_ / "outside.gguf";
  std::ofstream(outside) << "secret";
  fs::path snap = root_ / "models--org--evil/snapshots" / kCommit;
  fs::create_symlink(outside, snap / "abs.gguf");
  fs::create_symlink("../../../outside.gguf", snap / "rel.gguf");
  fs::create_directories(root_ / "elsewhere");
  std::ofstream(root_ / "elsewhere/inner.gguf") << "x";
  fs::create_directory_symlink(root_ / "elsewhere", snap / "dir");
  fs::create_symlink("nowhere", snap / "dangling.gguf");
  std::vector<StoreFile> files = HfStore(root_).ListModelFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "ok.gguf");
}

TEST_F(HfStoreTest, PublishIsAtomicPrivateAndLinksRelatively) {
  HfStore store(root_);
  fs::path download = root_ / "download.tmp";
  std::ofstream(download) << "weights";
  ASSERT_TRUE(store.Publish("org/new", kCommit, "Q4/model.gguf", kShaA, download).ok());
  ASSERT_TRUE(store.WriteRef("org/new", "main", kCommit).ok());
  fs::path repo = store.RepoDir("org/new");
  EXPECT_FALSE(fs::exists(download));
  EXPECT_EQ(Mode(repo), 0700);
  EXPECT_EQ(Mode(repo / "blobs"), 0700);
  EXPECT_EQ(Mode(repo / "snapshots" / kCommit), 0700);
  EXPECT_EQ(Mode(store.BlobPath("org/new", kShaA)), 0600);
  EXPECT_EQ(Mode(repo / "refs/main"), 0600);
  fs::path link = repo / "snapshots" / kCommit / "Q4/model.gguf";
  EXPECT_EQ(fs::read_symlink(link), fs::path("../../../blobs/" + kShaA));
  EXPECT_EQ(store.ReadRef("org/new", "main"), kCommit);
  ASSERT_EQ(store.ListModelFiles().size(), 1u);

  // The same content published again (another commit) reuses the blob.
  std::ofstream(download) << "weights";
  ASSERT_TRUE(store.Publish("org/new", kCommit2, "model.gguf", kShaA, download).ok());
  EXPECT_FALSE(fs::exists(download));
  EXPECT_EQ(store.ListModelFiles().size(), 2u);
}

TEST_F(HfStoreTest, PublishRejectsHostileNames) {
  HfStore store(root_);
  fs::path download = root_ / "d";
  std::ofstream(download) << "x";
  EXPECT_FALSE(store.Publish("../x", kCommit, "m.gguf", kShaA, download).ok());
  EXPECT_FALSE(store.Publish("org/x", "../../etc", "m.gguf", kShaA, download).ok());
  EXPECT_FALSE(store.Publish("org/x", kCommit, "../m.gguf", kShaA, download).ok());
  EXPECT_FALSE(store.Publish("org/x", kCommit, "/tmp/m.gguf", kShaA, download).ok());
  EXPECT_FALSE(store.Publish("org/x", kCommit, "m.gguf", "../" + kShaA, download).ok());
  EXPECT_FALSE(store.WriteRef("org/x", "../../passwd", kCommit).ok());
  EXPECT_TRUE(fs::exists(download));
  EXPECT_FALSE(fs::exists(root_ / "models--org--x"));
}

TEST_F(HfStoreTest, PartialRemoveKeepsBlobsOtherSnapshotsLink) {
  WriteForeignRepo("models--org--r", kCommit, {{"a.gguf", kShaA}, {"b.gguf", kShaB}});
  WriteForeignRepo("models--org--r", kCommit2, {{"keep.gguf", kShaA}});
  HfStore store(root_);
  ASSERT_TRUE(store.Remove("org/r", {"a.gguf", "b.gguf"}).ok());
  EXPECT_TRUE(fs::exists(store.BlobPath("org/r", kShaA)));  // keep.gguf still links it
  EXPECT_FALSE(fs::exists(store.BlobPath("org/r", kShaB)));
  EXPECT_FALSE(fs::exists(store.RepoDir("org/r") / "snapshots" / kCommit));
  std::vector<StoreFile> left = store.ListModelFiles();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].path, "keep.gguf");

  ASSERT_TRUE(store.Remove("org/r", {"keep.gguf"}).ok());
  EXPECT_FALSE(fs::exists(store.RepoDir("org/r")));
  EXPECT_EQ(store.Remove("org/r").code(), ErrorCode::kNotFound);
}

TEST_F(HfStoreTest, RemoveNeverFollowsLinksOutOfTheRepo) {
  WriteForeignRepo("models--org--r", kCommit, {{"a.gguf", kShaA}});
  fs::path outside = root_ / "precious.gguf";
  std::ofstream(outside) << "user data";
  fs::create_symlink(outside, root_ / "models--org--r/snapshots" / kCommit / "evil.gguf");
  HfStore store(root_);
  ASSERT_TRUE(store.Remove("org/r", {"evil.gguf"}).ok());
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_TRUE(fs::exists(store.BlobPath("org/r", kShaA)));
  ASSERT_TRUE(store.Remove("org/r").ok());
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_FALSE(fs::exists(store.RepoDir("org/r")));
  EXPECT_FALSE(store.Remove("org/r", {"../../precious.gguf"}).ok());
}

}  // namespace
}  // namespace zest::models
