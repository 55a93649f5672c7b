// OuteTTS 0.2 (a Qwen2 backbone that speaks WavTokenizer codes as tokens):
// the prompt it continues for a text, and the audio codes read back from the
// tokens it writes. Pure functions; zest tts-engine's OuteTTS route
// (tts_server.h) sends the prompt to the backbone's llama-server and the
// codes to the vocoder's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zest::engines {

// The first audio code's token id in OuteTTS 0.2's vocabulary; code c is
// token kOuteTtsFirstCode + c.
inline constexpr int32_t kOuteTtsFirstCode = 151672;
// WavTokenizer's codebook: codes 0..4095.
inline constexpr int32_t kWavTokenizerCodes = 4096;
// WavTokenizer (24 kHz, hop 320) writes 75 codes a second.
inline constexpr int kWavTokenizerRate = 24000;
inline constexpr int kWavTokenizerHop = 320;

// The words OuteTTS reads for `text`: ASCII lower case, `-_/,.\` read as
// spaces, digits spelled one by one ("42" -> "four two"), every other
// character dropped, one space between words. (OuteTTS's own normaliser
// reads whole numbers; letters outside ASCII are lost either way: OuteTTS
// 0.2 was trained on such text.)
std::string OuteTtsWords(std::string_view text);

// The prompt for `text`: `<|im_start|>\n<|text_start|>w1<|text_sep|>w2...
// <|text_end|>\n<|audio_start|>\n`; empty when the text has no words.
// Without a speaker profile: a real OuteTTS 0.2 model speaks better with
// one (a reference's words, each followed by its duration `<|t_0.32|>` and
// `<|code_start|>` its codes `<|code_end|>`, before the text), which zest
// does not have yet; the synthetic model speaks codes regardless.
std::string OuteTtsPrompt(std::string_view text);

// Whether the backbone's context of `context` tokens holds the prompt for
// `text` and `max_tokens` written after it; llama-server would stop at the
// context's end, and the audio would end mid-text without an error. The
// prompt's bytes bound its tokens (every token spells at least one byte),
// so no tokenizer is asked. nullopt when it fits (or `context` is 0, the
// model's own); otherwise about the most characters of text like `text`
// that do fit, for the client's error.
std::optional<size_t> OuteTtsTooLong(std::string_view text, int max_tokens, int context);

// The WavTokenizer codes among the tokens the backbone wrote, in order;
// everything else (word tokens, durations, code_start/code_end) dropped.
std::vector<int32_t> OuteTtsCodes(const std::vector<int32_t>& tokens);

}  // namespace zest::engines
