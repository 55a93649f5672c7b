// Issue 52, 13: every file an engine reads is checked, not only the model
// and its projector: a world-writable draft, vocoder or shard is refused.
#include "models/model_file_safety.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

TEST(ModelFileSafetyTest, EveryFileTheEngineReadsIsChecked) {
  zest::testing::TempDir dir("safety");
  fs::create_directories(dir.path() / "models");
  ::chmod((dir.path() / "models").c_str(), 0755);
  ModelEntry model;
  model.name = "m";
  model.path = dir.path() / "models" / "m-00001-of-00002.gguf";
  const fs::path shard = dir.path() / "models" / "m-00002-of-00002.gguf";
  const fs::path draft = dir.path() / "models" / "draft.gguf";
  model.vocoder = dir.path() / "models" / "vocoder.gguf";
  for (const fs::path& file : {model.path, shard, draft, model.vocoder}) {
    std::ofstream(file) << "GGUF";
    ::chmod(file.c_str(), 0644);
  }
  const std::vector<fs::path> files = {model.path, shard, draft, model.vocoder};
  EXPECT_TRUE(CheckModelFilesSafe(model, files).ok());
  for (const fs::path& file : {shard, draft, model.vocoder}) {
    ::chmod(file.c_str(), 0666);
    Status status = CheckModelFilesSafe(model, files);
    EXPECT_FALSE(status.ok()) << file;
    EXPECT_NE(status.message().find(file.string() + " is world-writable"), std::string::npos)
        << status.message();
    ::chmod(file.c_str(), 0644);
  }
  // The model's own entry: its vocoder is checked too.
  ::chmod(model.vocoder.c_str(), 0666);
  EXPECT_FALSE(CheckModelFilesSafe(model).ok());
}

}  // namespace
}  // namespace zest::models
