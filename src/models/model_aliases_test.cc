#include "models/model_aliases.h"

#include <gtest/gtest.h>

namespace zest::models {
namespace {

TEST(ModelAliasesTest, ExactWinsThenTheLongestGlob) {
  const std::vector<ModelAlias> aliases = {
      {"claude-*", "coder"}, {"claude-opus-*", "big"}, {"gpt-4o", "small"}, {"gpt-?", "tiny"}};
  EXPECT_EQ(ResolveAlias(aliases, "claude-sonnet-4-5"), "coder");
  EXPECT_EQ(ResolveAlias(aliases, "claude-opus-4-1"), "big") << "the more specific pattern";
  EXPECT_EQ(ResolveAlias(aliases, "GPT-4o"), "small") << "names match case-insensitively";
  EXPECT_EQ(ResolveAlias(aliases, "gpt-5"), "tiny");
  EXPECT_EQ(ResolveAlias(aliases, "gpt-4o-mini"), std::nullopt);
  EXPECT_EQ(ResolveAlias({}, "x"), std::nullopt);
}

TEST(ModelAliasesTest, TargetsAreModelsNotPatterns) {
  EXPECT_TRUE(CheckAlias({"claude-*", "qwen3"}).ok());
  EXPECT_FALSE(CheckAlias({"claude-*", "qwen*"}).ok());
  EXPECT_FALSE(CheckAlias({"", "qwen3"}).ok());
  EXPECT_FALSE(CheckAlias({"x", ""}).ok());
}

}  // namespace
}  // namespace zest::models
