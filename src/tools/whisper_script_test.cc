#include "tools/whisper_script.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tools/random_weights.h"
#include "tools/whisper_vocab.h"

namespace zest::tools {
namespace {

constexpr uint32_t kState = 64;
constexpr int32_t kTextContext = 448;

TEST(WhisperScriptTest, MultilingualPositions) {
  const WhisperScript s = BuildWhisperScript(kWhisperMultilingualVocabSize, kTextContext, 1);
  const WhisperSpecialTokens t = WhisperSpecialTokensFor(kWhisperMultilingualVocabSize);
  ASSERT_EQ(s.positions.size(), 448u);
  ASSERT_EQ(s.words.size(), 5u);
  EXPECT_EQ(s.positions[0].token, 50259);  // <|en|>, for language detection
  EXPECT_EQ(s.positions[1].token, -1);
  // Window 1 after <|startoftranscript|> <|en|> <|transcribe|>.
  EXPECT_EQ(s.positions[2].token, t.timestamp_begin);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.positions[3 + i].token, s.words[i]);
  EXPECT_EQ(s.positions[8].token, t.timestamp_begin + 100);  // <|2.00|>
  EXPECT_EQ(s.positions[8].fallback, t.end_of_text);
  EXPECT_EQ(s.positions[9].token, t.end_of_text);
  // Window n >= 2 starts at 7n - 4, where window n - 1 ends.
  for (int start : {10, 17, 24, 213}) {
    EXPECT_EQ(s.positions[start].token, t.end_of_text) << start;
    EXPECT_EQ(s.positions[start].fallback, t.timestamp_begin) << start;
    EXPECT_EQ(s.positions[start + 1].token, s.words[0]) << start;
    EXPECT_EQ(s.positions[start + 6].token, t.timestamp_begin + 100) << start;
  }
}

TEST(WhisperScriptTest, EnglishOnlyStartsAtPositionZero) {
  const WhisperScript s = BuildWhisperScript(kWhisperEnglishVocabSize, kTextContext, 1);
  EXPECT_EQ(s.positions[0].token, 50363);  // <|0.00|> of an English-only vocabulary
  EXPECT_EQ(s.positions[7].token, 50256);  // <|endoftext|>
  EXPECT_EQ(s.positions[8].fallback, 50363);
}

TEST(WhisperScriptTest, WordsAreDistinctSpacedTokensChosenBySeed) {
  const std::vector<std::string> vocab = BuildWhisperVocab(kWhisperMultilingualVocabSize);
  const WhisperScript a = BuildWhisperScript(kWhisperMultilingualVocabSize, kTextContext, 1);
  const WhisperScript b = BuildWhisperScript(kWhisperMultilingualVocabSize, kTextContext, 2);
  EXPECT_NE(a.words, b.words);
  const std::string text = WhisperScriptText(a, vocab);
  EXPECT_EQ(std::count(text.begin(), text.end(), ' '), 5) << text;
  for (int32_t w : a.words) EXPECT_EQ(vocab[w][0], ' ');
}

// The decoder's output head without its blocks: the final layer norm (weight
// 1, bias 0) of token + position embedding, then logits against every token
// row. The blocks add little to this (their weights are 0.02 wide), so the
// cue must win here by a wide margin.
std::vector<float> Logits(const std::vector<float>& tokens, const std::vector<float>& positions,
                          int32_t input, size_t position) {
  std::vector<double> x(kState);
  double mean = 0, var = 0;
  for (uint32_t i = 0; i < kState; ++i) {
    x[i] = tokens[input * kState + i] + positions[position * kState + i];
    mean += x[i] / kState;
  }
  for (double& v : x) var += (v - mean) * (v - mean) / kState;
  for (double& v : x) v = (v - mean) / std::sqrt(var + 1e-5);
  std::vector<float> logits(tokens.size() / kState);
  for (size_t t = 0; t < logits.size(); ++t) {
    double dot = 0;
    for (uint32_t i = 0; i < kState; ++i) dot += x[i] * tokens[t * kState + i];
    logits[t] = static_cast<float>(dot);
  }
  return logits;
}

TEST(WhisperScriptTest, EachCueWinsAndItsFallbackIsNext) {
  const int32_t n_vocab = kWhisperMultilingualVocabSize;
  const WhisperScript script = BuildWhisperScript(n_vocab, kTextContext, 1);
  WeightGenerator gen(1);
  std::vector<float> positions = gen.Random(uint64_t{kState} * kTextContext);
  std::vector<float> tokens = gen.Random(uint64_t{kState} * n_vocab);
  ApplyWhisperScript(script, kState, tokens, positions);
  const int32_t transcribe = WhisperSpecialTokensFor(n_vocab).transcribe;
  for (size_t p = 2; p < 40; ++p) {
    const WhisperScript::Cue& cue = script.positions[p];
    // What the decoder reads there: the previous cue, or the prompt's last token.
    const int32_t input = script.positions[p - 1].token == -1 || cue.fallback == 50364
                              ? transcribe
                              : script.positions[p - 1].token;
    std::vector<float> logits = Logits(tokens, positions, input, p);
    const float cue_logit = logits[cue.token];
    logits[cue.token] = -INFINITY;
    const auto runner_up = std::max_element(logits.begin(), logits.end()) - logits.begin();
    // > 16: the cue beats the mass of 51,864 logits near 0 (log 51865 = 10.9).
    EXPECT_GT(cue_logit, 16.0f) << "position " << p;
    if (cue.fallback >= 0) {
      EXPECT_EQ(runner_up, cue.fallback) << "position " << p;
      EXPECT_GT(logits[runner_up], 10.0f) << "position " << p;
    } else {
      EXPECT_LT(logits[runner_up], cue_logit - 8.0f) << "position " << p;
    }
  }
}

}  // namespace
}  // namespace zest::tools
