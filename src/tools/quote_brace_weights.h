// Designed weights (neither random nor trained) for a synthetic model with a
// designed token preference, the "tiny-quote-brace" preset: its next token
// depends only on the current one, and is by a wide margin
//   after '"':              '}'          (second choice ':')
//   after '}':              <|im_end|>   (second choice '"')
//   after any other token:  '"'          (second choice '{')
// Left to itself it answers `"}` and ends its turn: never JSON. Under
// llama-server's grammar for a JSON object the second choices take over
// where the first is not allowed, and it answers `{"}":"}"}`: a short
// object, the same on every seed. So a test of a JSON-object response
// format fails when the grammar is not applied (and no longer depends on
// random weights happening to close their strings: with llama.cpp's
// generic JSON grammar a random model's string can run to the end of the
// context).
//
// How: the model's layers add nothing to the residual stream (their
// matrices are all zero), so the final norm sees the current token's
// embedding, a one-hot of its class (quote, brace, any other); after the
// norm that dimension holds NormalizedOneHot(). Each output row holds, per
// class, the logit its token gets after that class divided by that value.
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "tools/synthetic_model.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {

// The logits: the first choice, the second, and 0 for every other token.
// The margins are far wider than default sampling needs (min-p 0.05 drops
// any token 3 below the best), so the choices hold with min-p off and at
// temperature 1 too (e^-15 per token).
inline constexpr float kPreferredLogit = 30.0f;
inline constexpr float kSecondLogit = 15.0f;

// token_embd.weight: n_vocab rows of spec.embedding (at least 3).
std::vector<float> QuoteBraceEmbeddings(const SyntheticModelSpec& spec,
                                        const SyntheticVocab& vocab);

// output.weight: n_vocab rows of spec.embedding.
std::vector<float> QuoteBraceOutput(const SyntheticModelSpec& spec, const SyntheticVocab& vocab);

// What 1.0 in one dimension of an otherwise zero vector of `embedding`
// dimensions becomes after llama.cpp's RMS norm.
float NormalizedOneHot(uint32_t embedding);

}  // namespace zest::tools
