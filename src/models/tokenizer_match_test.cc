#include "models/tokenizer_match.h"

#include <gtest/gtest.h>

namespace zest::models {
namespace {

GgufFile WithTokens(std::vector<std::string> tokens, uint64_t eos = 2) {
  GgufFile file;
  file.metadata["tokenizer.ggml.model"] = GgufValue{.value = std::string("llama")};
  file.metadata["tokenizer.ggml.tokens"] = GgufValue{.value = std::move(tokens)};
  file.metadata["tokenizer.ggml.eos_token_id"] = GgufValue{.value = eos};
  return file;
}

TEST(TokenizerMatchTest, SameVocabularyAndSpecialTokensMatch) {
  EXPECT_TRUE(
      CheckSameTokenizer(WithTokens({"<s>", "a", "b"}), WithTokens({"<s>", "a", "b"})).ok());
}

TEST(TokenizerMatchTest, EachDifferenceIsRefusedWithItsReason) {
  const GgufFile target = WithTokens({"<s>", "a", "b"});
  struct Case {
    GgufFile draft;
    std::string reason;
  };
  GgufFile other_kind = WithTokens({"<s>", "a", "b"});
  other_kind.metadata["tokenizer.ggml.model"] = GgufValue{.value = std::string("gpt2")};
  GgufFile no_tokens;
  const Case cases[] = {
      {WithTokens({"<s>", "a"}), "vocabulary has 2 tokens, the target's 3"},
      {WithTokens({"<s>", "a", "c"}), "token 2 is 'c', the target's 'b'"},
      {WithTokens({"<s>", "a", "b"}, 1), "eos_token_id is 1, the target's 2"},
      {other_kind, "tokenizer is 'gpt2', the target's 'llama'"},
      {no_tokens, "the draft has no token list"},
  };
  for (const Case& c : cases) {
    const Status status = CheckSameTokenizer(target, c.draft);
    EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument) << c.reason;
    EXPECT_NE(status.message().find(c.reason), std::string::npos) << status.message();
  }
}

TEST(TokenizerMatchTest, AMissingSpecialTokenDiffersFromAPresentOne) {
  GgufFile draft = WithTokens({"<s>", "a"});
  GgufFile target = WithTokens({"<s>", "a"});
  target.metadata["tokenizer.ggml.bos_token_id"] = GgufValue{.value = uint64_t{0}};
  EXPECT_FALSE(CheckSameTokenizer(target, draft).ok());
}

}  // namespace
}  // namespace zest::models
