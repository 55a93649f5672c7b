#include "tools/quote_brace_weights.h"

#include <cmath>
#include <cstdint>
#include <string_view>

namespace zest::tools {
namespace {

// The embedding dimension that marks each class of current token.
constexpr uint64_t kOther = 0;
constexpr uint64_t kQuote = 1;
constexpr uint64_t kBrace = 2;

constexpr uint64_t Byte(char c) { return kFirstByteToken + static_cast<unsigned char>(c); }

uint64_t ClassOf(uint64_t token) {
  if (token == Byte('"')) return kQuote;
  if (token == Byte('}')) return kBrace;
  return kOther;
}

// The id of a normal token with this text, or the vocabulary's size if none.
uint64_t PieceId(const SyntheticVocab& vocab, std::string_view piece) {
  for (uint64_t id = 0; id < vocab.tokens.size(); ++id) {
    if (vocab.types[id] == kTokenNormal && vocab.tokens[id] == piece) return id;
  }
  return vocab.tokens.size();
}

}  // namespace

float NormalizedOneHot(uint32_t embedding) {
  return 1.0f / std::sqrt(1.0f / static_cast<float>(embedding) + kRmsNormEpsilon);
}

std::vector<float> QuoteBraceEmbeddings(const SyntheticModelSpec& spec,
                                        const SyntheticVocab& vocab) {
  const uint64_t n = spec.embedding;
  std::vector<float> embeddings(vocab.tokens.size() * n, 0.0f);
  for (uint64_t t = 0; t < vocab.tokens.size(); ++t) embeddings[t * n + ClassOf(t)] = 1.0f;
  return embeddings;
}

std::vector<float> QuoteBraceOutput(const SyntheticModelSpec& spec, const SyntheticVocab& vocab) {
  const uint64_t n = spec.embedding;
  const float unit = NormalizedOneHot(spec.embedding);
  std::vector<float> output(vocab.tokens.size() * n, 0.0f);
  auto set = [&](uint64_t token, uint64_t after, float logit) {
    if (token < vocab.tokens.size()) output[token * n + after] = logit / unit;
  };
  set(Byte('"'), kOther, kPreferredLogit);
  set(Byte('}'), kQuote, kPreferredLogit);
  set(vocab.im_end_id, kBrace, kPreferredLogit);
  // ':' is a byte token and a word piece; the grammar takes either after a
  // key (and the tokenizer writes the piece, so it is the one a prompt has).
  set(Byte(':'), kQuote, kSecondLogit);
  set(PieceId(vocab, ":"), kQuote, kSecondLogit);
  set(Byte('"'), kBrace, kSecondLogit);
  // Where a grammar wants an object to start, '{' rather than a random pick
  // of what else it allows there (llama-server's lets a code fence open
  // first; its answer parser drops the fence, but the tokens vary).
  set(Byte('{'), kOther, kSecondLogit);
  return output;
}

}  // namespace zest::tools
