#include "engines/speculative_args.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engines/llama_server_args.h"

namespace zest::engines {
namespace {

using Argv = std::vector<std::string>;

SpeculativeArgs Args(std::string type, std::string draft = "", std::string device = "",
                     std::optional<int> max = std::nullopt, std::optional<int> min = std::nullopt) {
  SpeculativeArgs args;
  args.spec_type = std::move(type);
  args.draft_model = std::move(draft);
  args.draft_device = std::move(device);
  args.max_tokens = max;
  args.min_tokens = min;
  return args;
}

TEST(SpeculativeArgsTest, NoneWithoutASpecType) {
  EXPECT_TRUE(SpeculativeArgv({}).empty());
  EXPECT_TRUE(SpeculativeArgv(Args("", "/m/d.gguf", "", 8)).empty());
  EXPECT_EQ(SpecTypeFor("none"), "");
  EXPECT_EQ(SpecTypeFor("off"), "");
}

TEST(SpeculativeArgsTest, EachKindAndItsFlags) {
  struct Case {
    SpeculativeArgs args;
    Argv argv;
  };
  const Case cases[] = {
      {Args(SpecTypeFor("draft"), "/m/d.gguf"),
       {"--spec-type", "draft-simple", "--model-draft", "/m/d.gguf", "--device-draft", "none",
        "-ngld", "0"}},
      {Args(SpecTypeFor("draft"), "/m/d.gguf", "Vulkan0", 32, 2),
       {"--spec-type", "draft-simple", "--model-draft", "/m/d.gguf", "--device-draft", "Vulkan0",
        "-ngld", "all", "--spec-draft-n-max", "32", "--spec-draft-n-min", "2"}},
      {Args(SpecTypeFor("ngram"), "", "", 16),
       {"--spec-type", "ngram-simple", "--spec-draft-n-max", "16"}},
      {Args(SpecTypeFor("mtp")), {"--spec-type", "draft-mtp"}},
  };
  for (const Case& c : cases) EXPECT_EQ(SpeculativeArgv(c.args), c.argv);
}

TEST(SpeculativeArgsTest, LlamaServerArgsCarryThemBeforeTheUsersFlags) {
  LlamaServerOptions o;
  o.model = "/m/t.gguf";
  o.socket = "/run/e.sock";
  o.speculative = Args("draft-simple", "/m/d.gguf");
  o.extra = {"--temp", "0"};
  const Argv argv = LlamaServerArgs(o);
  const auto at = std::find(argv.begin(), argv.end(), "--model-draft");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at + 1), "/m/d.gguf");
  EXPECT_EQ(argv[argv.size() - 2], "--temp");
}

}  // namespace
}  // namespace zest::engines
