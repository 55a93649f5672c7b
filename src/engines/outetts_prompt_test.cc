#include "engines/outetts_prompt.h"

#include <gtest/gtest.h>

namespace zest::engines {
namespace {

TEST(OuteTtsWords, LowerCaseSeparatorsAndDigits) {
  EXPECT_EQ(OuteTtsWords("Hello, World!"), "hello world");
  EXPECT_EQ(OuteTtsWords("  state-of-the_art/x.y\\z  "), "state of the art x y z");
  EXPECT_EQ(OuteTtsWords("don't stop"), "dont stop");
  EXPECT_EQ(OuteTtsWords("Room 42b"), "room four two b");
  EXPECT_EQ(OuteTtsWords("caf\xC3\xA9 ok"), "caf ok");
  EXPECT_EQ(OuteTtsWords("?!"), "");
}

TEST(OuteTtsPrompt, WordsBetweenTextMarkers) {
  EXPECT_EQ(OuteTtsPrompt("Hello world."),
            "<|im_start|>\n<|text_start|>hello<|text_sep|>world<|text_end|>\n<|audio_start|>\n");
  EXPECT_EQ(OuteTtsPrompt("hi"), "<|im_start|>\n<|text_start|>hi<|text_end|>\n<|audio_start|>\n");
  EXPECT_EQ(OuteTtsPrompt("..."), "");
}

TEST(OuteTtsTooLong, TheCapAndThePromptMustFitTheBackbonesContext) {
  const std::string text = "Hello world.";  // 12 characters, a 77-byte prompt
  const int prompt = static_cast<int>(OuteTtsPrompt(text).size()) + 1;
  EXPECT_EQ(OuteTtsTooLong(text, 100, prompt + 100), std::nullopt);
  EXPECT_EQ(OuteTtsTooLong(text, 100, 0), std::nullopt);  // the model's own context
  // One token over: refused, with the characters that would fit at this rate.
  const std::optional<size_t> most = OuteTtsTooLong(text, 101, prompt + 100);
  ASSERT_TRUE(most.has_value());
  EXPECT_EQ(*most, 12u * (prompt + 100) / (prompt + 101));
  EXPECT_LT(*most, 12u);
  // A long text against the 8192-token context: some hundreds of characters.
  const std::string paragraph(2000, 'a');
  const std::optional<size_t> fits = OuteTtsTooLong(paragraph, 10 * 2000 + 75, 8192);
  ASSERT_TRUE(fits.has_value());
  EXPECT_GT(*fits, 300u);
  EXPECT_LT(*fits, 2000u);
}

TEST(OuteTtsCodes, KeepsOnlyCodebookTokens) {
  const std::vector<int32_t> tokens = {151671, 151672, 151673, 155767, 155768, 42, 151672 + 7};
  EXPECT_EQ(OuteTtsCodes(tokens), (std::vector<int32_t>{0, 1, 4095, 7}));
  EXPECT_TRUE(OuteTtsCodes({}).empty());
}

}  // namespace
}  // namespace zest::engines
