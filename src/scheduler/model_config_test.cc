#include "scheduler/model_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"
#include "engines/llama_server_adapter.h"

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

TEST(ModelConfigTest, ConfiguredOptionsAndTheEnginesFlagRules) {
  zest::testing::TempDir tmp("model-config");
  const fs::path& roots = tmp.path();
  std::ofstream(roots / "template.jinja") << "{{ messages }}";
  config::ModelSettings tuned;
  tuned.parallel = 3;
  const ModelConfig config(
      {{"m", tuned}},
      std::make_shared<engines::EngineSet>(
          std::make_unique<engines::LlamaServerAdapter>(NotFound("not needed here")), nullptr,
          nullptr),
      {roots});
  EXPECT_EQ(config.Configured("m").parallel, 3);
  EXPECT_FALSE(config.Configured("other").parallel.has_value());

  EXPECT_TRUE(config.CheckExtraArgs({"--ignore-eos"}).ok());
  EXPECT_TRUE(
      config.CheckExtraArgs({"--chat-template-file", (roots / "template.jinja").string()}).ok());
  // A flag zest sets itself, and a file outside the directories zest serves.
  EXPECT_EQ(config.CheckExtraArgs({"--port", "1"}).code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(config.CheckExtraArgs({"--chat-template-file", "/etc/passwd"}).ok());

  const ModelConfig no_engine({}, nullptr, {});
  EXPECT_TRUE(no_engine.CheckExtraArgs({}).ok());
  EXPECT_EQ(no_engine.CheckExtraArgs({"--ignore-eos"}).code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace zest::scheduler
