// A preset's speculative load options: read over its base's options,
// checked as config.toml's are, and only those make it an engine of its own.
#include "models/preset_load_options.h"

#include <gtest/gtest.h>

namespace zest::models {
namespace {

using nlohmann::json;

TEST(PresetLoadOptionsTest, OnlyLoadOptionsGiveAPresetAnEngineOfItsOwn) {
  ModelPreset sampling;
  sampling.parameters = json{{"temperature", 0.2}, {"num_ctx", 4096}};
  EXPECT_FALSE(HasLoadOptions(sampling));
  ModelPreset drafting;
  drafting.parameters = json{{"temperature", 0.2}, {"draft", "small"}};
  EXPECT_TRUE(HasLoadOptions(drafting));
  ModelPreset empty;
  EXPECT_FALSE(HasLoadOptions(empty));
}

TEST(PresetLoadOptionsTest, SetsThemOverTheBaseOptions) {
  config::ModelSettings base;
  base.ctx_size = 8192;
  base.draft = "other";
  Result<config::ModelSettings> s = WithLoadOptions(
      json{{"draft", "small"}, {"draft_max", 8}, {"speculative", "draft"}, {"top_k", 4}}, base);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->draft, "small");
  EXPECT_EQ(s->draft_max, 8);
  EXPECT_EQ(s->speculative, "draft");
  EXPECT_EQ(s->ctx_size, 8192);  // the base's, untouched
}

TEST(PresetLoadOptionsTest, RefusesValuesTheOptionsDoNotTake) {
  EXPECT_EQ(WithLoadOptions(json{{"draft_max", 0}}, {}).status().code(),
            ErrorCode::kInvalidArgument);
  Result<config::ModelSettings> bad = WithLoadOptions(json{{"speculative", "fast"}}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("parameters.speculative"), std::string::npos);
  EXPECT_FALSE(WithLoadOptions(json{{"draft", 3}}, {}).ok());
  EXPECT_FALSE(WithLoadOptions(json{{"draft_max", "8"}}, {}).ok());
}

}  // namespace
}  // namespace zest::models
