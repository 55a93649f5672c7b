// The script of synthetic whisper models. With purely random weights a
// whisper model rambles: every token is improbable, so whisper.cpp retries
// each 30 s window at five more temperatures (two candidates each), up to
// 220 tokens a try; one transcription of 53 s took 12 s on 2 cores. So the
// decoder is made to follow a script instead: the token and positional
// embeddings are set so that, at each position, one token wins with a
// probability near 1 whatever the audio says. Each window then transcribes,
// at the first temperature, to
//   <|0.00|> w1 w2 w3 w4 w5 <|2.00|> <|endoftext|>
// (five words picked by the seed), which whisper.cpp reports as one segment
// " w1 w2 w3 w4 w5" from 0 to 2 s of the window, after which it moves on to
// the next window. The encoder stays random.
//
// Positions are counted from the start of the decoder's prompt, which for
// whisper-server's defaults is <|startoftranscript|> <|lang|> <|transcribe|>
// on multilingual models and <|startoftranscript|> alone on English-only
// ones; prompts of another length (no_timestamps, an initial prompt) shift
// the script: the output is still short, but may be empty or retried.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zest::tools {

struct WhisperScript {
  struct Cue {
    int32_t token = -1;     // what wins at this position; -1: nothing scripted
    int32_t fallback = -1;  // the runner-up when whisper.cpp masks `token`; -1: none
  };
  std::vector<Cue> positions;  // one per text position (n_text_ctx)
  std::vector<int32_t> words;  // the word tokens, in order
};

inline constexpr int kWhisperScriptWords = 5;

// The script for a model of this vocabulary size and text context. On
// multilingual models position 0 also makes language detection answer
// English.
WhisperScript BuildWhisperScript(int32_t n_vocab, int32_t n_text_ctx, uint64_t seed);

// Rewrites `token_embedding` (n_vocab rows of `n_state`) and `positional`
// (n_text_ctx rows) so that the decoder follows `script`: each scripted
// token's row becomes a long zero-mean vector, and each position's row points
// along its cue's token (plus a shorter step towards the fallback). Rows of
// other tokens and positions keep their random values.
void ApplyWhisperScript(const WhisperScript& script, uint32_t n_state,
                        std::vector<float>& token_embedding, std::vector<float>& positional);

// What one 30 s window transcribes to: the words' text (" bako rize ...").
std::string WhisperScriptText(const WhisperScript& script, const std::vector<std::string>& vocab);

}  // namespace zest::tools
