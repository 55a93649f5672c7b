// The vocabulary of synthetic whisper models, and whisper's special token
// ids. A whisper ggml file stores only the ordinary tokens (ids 0 up to
// <|endoftext|>); whisper.cpp derives the special tokens (<|endoftext|>,
// <|startoftranscript|>, the languages, tasks and 1501 timestamps) from the
// n_vocab hyperparameter, so that number, not the stored list, decides
// whether a model is English-only or multilingual. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zest::tools {

// n_vocab of the English-only models (tiny.en ... medium.en) and of the
// multilingual ones with 99 languages (tiny ... large-v2); large-v3 has 51866.
inline constexpr int32_t kWhisperEnglishVocabSize = 51864;
inline constexpr int32_t kWhisperMultilingualVocabSize = 51865;

// Special token ids as whisper.cpp computes them (whisper_vocab).
struct WhisperSpecialTokens {
  int32_t end_of_text;          // <|endoftext|>: 50256 English-only, 50257 multilingual
  int32_t start_of_transcript;  // <|startoftranscript|>, followed by the language tokens
  int32_t languages;            // language tokens: start_of_transcript + 1 + language id
  int32_t translate;
  int32_t transcribe;
  int32_t no_timestamps;
  int32_t timestamp_begin;  // <|0.00|>; timestamps run from here to n_vocab - 1
};
WhisperSpecialTokens WhisperSpecialTokensFor(int32_t n_vocab);

// The ordinary tokens a file of this n_vocab stores (ids 0 to end_of_text - 1):
// the 256 single bytes (so any prompt tokenizes, and " " exists: whisper.cpp
// looks it up), then pronounceable syllables with and without a leading
// space, so random weights transcribe into readable gibberish (" bako rize").
// Always the same list; every entry distinct.
std::vector<std::string> BuildWhisperVocab(int32_t n_vocab);

}  // namespace zest::tools
