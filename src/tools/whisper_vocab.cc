#include "tools/whisper_vocab.h"

#include <string_view>

namespace zest::tools {
namespace {

constexpr std::string_view kConsonants = "bdfgklmnprstvz";
constexpr std::string_view kVowels = "aeiou";

// Word number `n` (from 1) in bijective base 70 over the syllables, so every
// n has its own spelling: 1..70 one syllable, then two, then three...
std::string Syllables(uint32_t n) {
  const uint32_t base = kConsonants.size() * kVowels.size();
  std::string word;
  while (n > 0) {
    const uint32_t digit = (n - 1) % base;
    word.insert(0, {kConsonants[digit / kVowels.size()], kVowels[digit % kVowels.size()]});
    n = (n - 1) / base;
  }
  return word;
}

}  // namespace

WhisperSpecialTokens WhisperSpecialTokensFor(int32_t n_vocab) {
  // The English-only ids; a multilingual vocabulary has one more ordinary
  // token, and its tasks come after its languages (99 when n_vocab is 51865).
  WhisperSpecialTokens t{.end_of_text = 50256,
                         .start_of_transcript = 50257,
                         .languages = 99,
                         .translate = 50357,
                         .transcribe = 50358,
                         .no_timestamps = 50362,
                         .timestamp_begin = 50363};
  if (n_vocab < kWhisperMultilingualVocabSize) return t;
  const int32_t languages = n_vocab - 51765 - 1;
  const int32_t shift = languages - 98;
  t.end_of_text += 1;
  t.start_of_transcript += 1;
  t.languages = languages;
  t.translate += shift;
  t.transcribe += shift;
  t.no_timestamps += shift;
  t.timestamp_begin += shift;
  return t;
}

std::vector<std::string> BuildWhisperVocab(int32_t n_vocab) {
  const int32_t count = WhisperSpecialTokensFor(n_vocab).end_of_text;
  std::vector<std::string> tokens;
  tokens.reserve(count);
  for (int byte = 0; byte < 256; ++byte) tokens.emplace_back(1, static_cast<char>(byte));
  for (uint32_t k = 0; static_cast<int32_t>(tokens.size()) < count; ++k) {
    const std::string word = Syllables(k / 2 + 1);
    tokens.push_back(k % 2 == 0 ? " " + word : word);
  }
  return tokens;
}

}  // namespace zest::tools
