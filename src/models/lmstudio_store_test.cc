#include "models/lmstudio_store.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"
#include "models/store_naming.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

class LmStudioStoreTest : public ::testing::Test {
 protected:
  void File(const std::string& rel, const std::string& bytes = "GGUF") {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << bytes;
  }
  zest::testing::TempDir tmp_{"lmstudio-store"};
  const fs::path root_ = tmp_.path();
};

TEST_F(LmStudioStoreTest, ListsPublisherRepoFiles) {
  File("lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf", "12345");
  File("lmstudio-community/Tiny-GGUF/Tiny-Q4_K_M.gguf");
  File("lmstudio-community/Tiny-GGUF/mmproj-Tiny-F16.gguf");
  File("lmstudio-community/Tiny-GGUF/README.md");
  File("org/Big-GGUF/Q4_K_M/Big-Q4_K_M.gguf");
  File("loose.gguf");                   // not in a publisher/repo directory
  File("org/.hidden/x-Q8_0.gguf");      // a dot directory
  File("org/repo/a/b/deep-Q8_0.gguf");  // deeper than a quant folder

  std::vector<StoreFile> files = LmStudioStore(root_).ListModelFiles();
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].repo, "lmstudio-community/Tiny-GGUF");
  EXPECT_EQ(files[0].path, "Tiny-Q4_K_M.gguf");
  EXPECT_EQ(files[2].path, "mmproj-Tiny-F16.gguf");
  EXPECT_EQ(files[1].path, "Tiny-Q8_0.gguf");
  EXPECT_EQ(files[1].size, 5u);
  EXPECT_EQ(files[1].file, root_ / "lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf");
  EXPECT_EQ(files[3].repo, "org/Big-GGUF");
  EXPECT_EQ(files[3].path, "Q4_K_M/Big-Q4_K_M.gguf");

  // Grouped as the Hugging Face store groups a repo: named by quant, the
  // projector beside the models.
  std::vector<StoreFile> tiny(files.begin(), files.begin() + 3);
  std::vector<StoreModel> models = GroupStoreModels(tiny);
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "lmstudio-community/Tiny-GGUF:Q4_K_M");
  EXPECT_EQ(models[1].name, "lmstudio-community/Tiny-GGUF:Q8_0");
  ASSERT_EQ(models[0].mmprojs.size(), 1u);
  EXPECT_EQ(models[0].mmprojs[0].path, "mmproj-Tiny-F16.gguf");
}

TEST_F(LmStudioStoreTest, NoDirectoryNoModels) {
  EXPECT_TRUE(LmStudioStore(root_ / "absent").ListModelFiles().empty());
}

}  // namespace
}  // namespace zest::models
