#include "models/model_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tools/synthetic_model.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

class ModelRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("zest-registry-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "models");
    fs::create_directories(root_ / "elsewhere");
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path WriteModel(const fs::path& path) {
    auto spec = tools::PresetSpec("tiny");
    EXPECT_TRUE(spec.ok());
    EXPECT_TRUE(tools::WriteSyntheticModel(*spec, path).ok());
    return path;
  }

  ModelRegistry Registry() { return ModelRegistry(root_ / "models", root_ / "user_models.json"); }

  fs::path root_;
};

TEST_F(ModelRegistryTest, ScansGgufFilesByStemWithMetadata) {
  WriteModel(root_ / "models/alpha.gguf");
  std::ofstream(root_ / "models/notes.txt") << "not a model";
  std::ofstream(root_ / "models/broken.gguf") << "garbage";
  auto all = Registry().List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "alpha");
  EXPECT_EQ(all[0].info.architecture, "llama");
  EXPECT_GT(all[0].info.context_length, 0u);
  EXPECT_TRUE(all[0].error.empty());
  EXPECT_EQ(all[1].name, "broken");
  EXPECT_FALSE(all[1].error.empty());
}

TEST_F(ModelRegistryTest, FindUnknownListsAvailableNames) {
  WriteModel(root_ / "models/alpha.gguf");
  auto missing = Registry().Find("beta");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("alpha"), std::string::npos);
}

TEST_F(ModelRegistryTest, AddedModelsPersistAndWinOverScanned) {
  WriteModel(root_ / "models/alpha.gguf");
  fs::path other = WriteModel(root_ / "elsewhere/x.gguf");
  ASSERT_TRUE(Registry().Add("alpha", other).ok());
  ASSERT_TRUE(Registry().Add("org/model:q8", other).ok());
  ModelRegistry fresh = Registry();  // reads the file again
  auto alpha = fresh.Find("alpha");
  ASSERT_TRUE(alpha.ok());
  EXPECT_EQ(alpha->path, other);
  EXPECT_EQ(alpha->source, "user");
  EXPECT_TRUE(fresh.Find("org/model:q8").ok());
}

TEST_F(ModelRegistryTest, AddRejectsBadNamesAndFiles) {
  fs::path model = WriteModel(root_ / "elsewhere/x.gguf");
  EXPECT_FALSE(Registry().Add("", model).ok());
  EXPECT_FALSE(Registry().Add("../etc", model).ok());
  EXPECT_FALSE(Registry().Add("has space", model).ok());
  EXPECT_FALSE(Registry().Add("ok", root_ / "missing.gguf").ok());
  std::ofstream(root_ / "elsewhere/bad.gguf") << "nope";
  EXPECT_FALSE(Registry().Add("ok", root_ / "elsewhere/bad.gguf").ok());
  EXPECT_FALSE(fs::exists(root_ / "user_models.json"));
}

}  // namespace
}  // namespace zest::models
