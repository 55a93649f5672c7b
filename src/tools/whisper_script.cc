#include "tools/whisper_script.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <span>

#include "tools/whisper_vocab.h"

namespace zest::tools {
namespace {

// The final layer norm scales the decoder's output to length sqrt(n_state)
// (8 for 64), so a token whose row is a unit vector u times kTokenNorm, at a
// position whose output points along u, gets a logit of 8 x 3 = 24, against
// ~0.2 for the 51,864 random rows (whose mass is e^10.9): probability
// > 0.9999. The positional row is 20/3 times longer than any token row, so
// the token just read (the previous cue) barely turns the output away from
// the new cue.
constexpr float kTokenNorm = 3.0f;
constexpr float kPositionNorm = 20.0f;
// The fallback's share of a position's direction: logits ~19 for the cue
// and ~14 for the fallback, so the fallback wins only when the cue is masked.
constexpr float kFallbackShare = 0.75f;
// The closing timestamp, <|2.00|>: timestamps step by 20 ms.
constexpr int32_t kClosingTimestampSteps = 100;

// The seed's words: distinct tokens with a leading space (even offsets past
// the 256 bytes in BuildWhisperVocab), so the text reads as words.
std::vector<int32_t> PickWords(int32_t end_of_text, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> pick(0, (end_of_text - 256) / 2 - 1);
  std::vector<int32_t> words;
  while (static_cast<int>(words.size()) < kWhisperScriptWords) {
    const int32_t id = 256 + 2 * pick(rng);
    if (std::find(words.begin(), words.end(), id) == words.end()) words.push_back(id);
  }
  return words;
}

std::span<float> Row(std::vector<float>& rows, int32_t index, uint32_t n_state) {
  return std::span<float>(rows).subspan(static_cast<size_t>(index) * n_state, n_state);
}

// Makes `row` zero-mean (the layer norm removes the mean) and of length `norm`.
void Normalize(std::span<float> row, float norm) {
  double mean = 0;
  for (float v : row) mean += v;
  mean /= static_cast<double>(row.size());
  double length = 0;
  for (float& v : row) {
    v = static_cast<float>(v - mean);
    length += static_cast<double>(v) * v;
  }
  const double scale = length > 0 ? norm / std::sqrt(length) : 0.0;
  for (float& v : row) v = static_cast<float>(v * scale);
}

}  // namespace

WhisperScript BuildWhisperScript(int32_t n_vocab, int32_t n_text_ctx, uint64_t seed) {
  const WhisperSpecialTokens t = WhisperSpecialTokensFor(n_vocab);
  const bool multilingual = n_vocab >= kWhisperMultilingualVocabSize;
  const int32_t closing = t.timestamp_begin + kClosingTimestampSteps;
  WhisperScript script;
  script.words = PickWords(t.end_of_text, seed);
  std::vector<WhisperScript::Cue>& cues = script.positions;
  // One window's output after its first token: the words, then <|2.00|>
  // (or <|endoftext|> when timestamps are off and it is masked).
  auto add_window_rest = [&] {
    for (int32_t word : script.words) cues.push_back({word, -1});
    cues.push_back({closing, t.end_of_text});
  };
  // The prompt <|startoftranscript|> [<|en|> <|transcribe|>]: its last
  // position yields the first window's first token, <|0.00|>. Position 0
  // also answers language detection, which decodes <|startoftranscript|>.
  if (multilingual) cues.push_back({t.start_of_transcript + 1, -1});  // <|en|>
  if (multilingual) cues.push_back({});
  cues.push_back({t.timestamp_begin, -1});
  add_window_rest();
  cues.push_back({t.end_of_text, -1});
  // Each later window's prompt is <|startofprev|>, every earlier window's
  // output (7 tokens each, <|0.00|> to <|2.00|>), then the same prompt, so
  // its first position is where the previous window ends: there the cue is
  // <|endoftext|>, which whisper.cpp masks for a window's first token, so
  // the fallback <|0.00|> starts the new window. (After ~32 windows the
  // history is cut to 223 tokens and the script loses step.)
  while (static_cast<int32_t>(cues.size()) < n_text_ctx) {
    cues.push_back({t.end_of_text, t.timestamp_begin});
    add_window_rest();
  }
  cues.resize(static_cast<size_t>(n_text_ctx));
  return script;
}

void ApplyWhisperScript(const WhisperScript& script, uint32_t n_state,
                        std::vector<float>& token_embedding, std::vector<float>& positional) {
  std::set<int32_t> cued;
  for (const WhisperScript::Cue& cue : script.positions) {
    if (cue.token >= 0) cued.insert(cue.token);
    if (cue.fallback >= 0) cued.insert(cue.fallback);
  }
  for (int32_t token : cued) Normalize(Row(token_embedding, token, n_state), kTokenNorm);
  std::vector<float> direction(n_state);
  for (size_t p = 0; p < script.positions.size(); ++p) {
    const WhisperScript::Cue& cue = script.positions[p];
    if (cue.token < 0) continue;
    std::span<const float> u = Row(token_embedding, cue.token, n_state);
    std::copy(u.begin(), u.end(), direction.begin());
    if (cue.fallback >= 0) {
      std::span<const float> f = Row(token_embedding, cue.fallback, n_state);
      for (uint32_t i = 0; i < n_state; ++i) direction[i] += kFallbackShare * f[i];
    }
    Normalize(direction, kPositionNorm);
    std::span<float> row = Row(positional, static_cast<int32_t>(p), n_state);
    for (uint32_t i = 0; i < n_state; ++i) row[i] += direction[i];
  }
}

std::string WhisperScriptText(const WhisperScript& script, const std::vector<std::string>& vocab) {
  std::string text;
  for (int32_t word : script.words) text += vocab.at(static_cast<size_t>(word));
  return text;
}

}  // namespace zest::tools
