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

TEST(OuteTtsCodes, KeepsOnlyCodebookTokens) {
  const std::vector<int32_t> tokens = {151671, 151672, 151673, 155767, 155768, 42, 151672 + 7};
  EXPECT_EQ(OuteTtsCodes(tokens), (std::vector<int32_t>{0, 1, 4095, 7}));
  EXPECT_TRUE(OuteTtsCodes({}).empty());
}

}  // namespace
}  // namespace zest::engines
