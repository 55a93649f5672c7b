#include "tools/file_reader_weights.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace zest::tools {
namespace {

// The hidden dimensions: a constant, the two markers, the carrier layer 0
// writes, then one per class of token.
constexpr uint64_t kBias = 0;      // 1.0 in every embedding
constexpr uint64_t kOffered = 1;   // 1.0 in <tools>
constexpr uint64_t kAnswered = 2;  // 1.0 in </tool_call> and <tool_response>
constexpr uint64_t kStart = 3;     // layer 0 writes offered minus answered here, at "\n"
constexpr uint64_t kFirstClass = 4;

// Classes of tokens, by what follows them.
enum TokenClass : uint64_t {
  kOther,       // -> <|im_end|>
  kNewline,     // -> <tool_call> (tools offered, none answered) or the answer
  kCallStart,   // <tool_call> -> the call's opening
  kCallOpen,    // \n{"name": " -> a read tool's name
  kName,        // -> ", "arguments": {"
  kArguments,   // -> a path key
  kPathKey,     // file_path": " and the like -> the path
  kCommandKey,  // cmd": " -> cat and the path
  kValue,       // -> "}}
  kCallClose,   // "}} -> </tool_call>
  kCallEnd,     // </tool_call> -> <|im_end|>
  kAnswer,      // -> <|im_end|>
  kClassCount,
};

// How much layer 0 writes into kStart when its heads find a marker: small
// next to the bias and class dimensions, so the final norm shrinks the
// class's logits only a little where a call starts.
constexpr float kCarrier = 0.5f;

// Attention score (after llama.cpp's 1/sqrt(head_dim)) of a marker for a
// "\n" position: e^60 outweighs every unmarked position of any context,
// also after the rotary turn over a full context (cos 0.65 ≈ 0.8:
// steering_weights.h's RopeFreqBase, which every synthetic model's metadata
// uses).
constexpr float kMarkerScore = 60.0f;

// The value a dimension holding 1.0 has after llama.cpp's RMS norm of an
// embedding-wide vector whose entries' squares sum to `squares`.
float Normalized(uint64_t n, float squares) {
  return 1.0f / std::sqrt(squares / static_cast<float>(n) + kRmsNormEpsilon);
}

constexpr uint64_t Byte(char c) { return kFirstByteToken + static_cast<unsigned char>(c); }

// The id of the token with exactly this text (the vocabulary has it).
uint64_t PieceId(const SyntheticVocab& vocab, std::string_view piece) {
  return static_cast<uint64_t>(std::find(vocab.tokens.begin(), vocab.tokens.end(), piece) -
                               vocab.tokens.begin());
}

TokenClass ClassOf(const SyntheticVocab& vocab, uint64_t token) {
  if (token == Byte('\n')) return kNewline;
  if (token == vocab.tool_call_id) return kCallStart;
  if (token == vocab.tool_call_end_id) return kCallEnd;
  if (token <= vocab.fim_middle_id) return kOther;  // the base vocabulary's rest
  const std::string_view text = vocab.tokens[token];
  if (text == kCallOpenPiece) return kCallOpen;
  if (std::find(kReadToolNames.begin(), kReadToolNames.end(), text) != kReadToolNames.end()) {
    return kName;
  }
  if (text == kArgumentsPiece) return kArguments;
  if (text == kPathKeyPieces.back()) return kCommandKey;
  if (std::find(kPathKeyPieces.begin(), kPathKeyPieces.end(), text) != kPathKeyPieces.end()) {
    return kPathKey;
  }
  if (text == kPathPiece || text == kCatPiece) return kValue;
  if (text == kCallClosePiece) return kCallClose;
  if (text == kAnswerPiece) return kAnswer;
  return kOther;
}

}  // namespace

SyntheticVocab FileReaderVocab() {
  SyntheticVocab vocab = BuildSyntheticVocab();
  auto add = [&](std::string_view piece) {
    vocab.tokens.emplace_back(piece);
    // Below every word piece's score; no merge reaches these anyway.
    vocab.scores.push_back(-static_cast<float>(vocab.tokens.size()));
    vocab.types.push_back(kTokenNormal);
  };
  add(kCallOpenPiece);
  for (std::string_view name : kReadToolNames) add(name);
  add(kArgumentsPiece);
  for (std::string_view key : kPathKeyPieces) add(key);
  add(kPathPiece);
  add(kCatPiece);
  add(kCallClosePiece);
  add(kAnswerPiece);
  return vocab;
}

uint32_t FileReaderMinEmbedding() { return static_cast<uint32_t>(kFirstClass + kClassCount); }

std::vector<float> FileReaderEmbeddings(const SyntheticModelSpec& spec,
                                        const SyntheticVocab& vocab) {
  const uint64_t n = spec.embedding;
  std::vector<float> embeddings(vocab.tokens.size() * n, 0.0f);
  for (uint64_t t = 0; t < vocab.tokens.size(); ++t) {
    float* row = embeddings.data() + t * n;
    row[kBias] = 1.0f;
    row[kFirstClass + ClassOf(vocab, t)] = 1.0f;
    if (t == vocab.tools_id) row[kOffered] = 1.0f;
    if (t == vocab.tool_call_end_id || t == vocab.tool_response_id) row[kAnswered] = 1.0f;
  }
  return embeddings;
}

// KV head 0 keys and values on the offered marker, KV head 1 on the
// answered one; the first query head of each KV head's group asks from "\n"
// positions only (elsewhere its query is zero and its attention spread
// evenly, over values that are zero but at the few markers). The keys and
// queries sit in the head's last rotary pair, which turns slowest.
FileReaderAttention FileReaderLayer0(const SyntheticModelSpec& spec) {
  const uint64_t n = spec.embedding;
  const uint64_t hd = n / spec.heads;
  const uint64_t group = spec.heads / spec.kv_heads;
  const uint64_t slow = hd - 2;
  FileReaderAttention a{.q = std::vector<float>(n * n),
                        .k = std::vector<float>(n * hd * spec.kv_heads),
                        .v = std::vector<float>(n * hd * spec.kv_heads),
                        .attn_output = std::vector<float>(n * n)};
  // A query and key of this size give kMarkerScore after 1/sqrt(hd).
  const float side = std::sqrt(kMarkerScore * std::sqrt(static_cast<float>(hd)));
  const float at_marker = Normalized(n, 3.0f);   // bias, class and marker
  const float at_newline = Normalized(n, 2.0f);  // bias and class
  for (uint64_t kv = 0; kv < 2; ++kv) {
    const uint64_t marker = kv == 0 ? kOffered : kAnswered;
    a.k[(kv * hd + slow) * n + marker] = side / at_marker;
    a.v[kv * hd * n + marker] = 1.0f / at_marker;  // 1.0 where the marker is
    const uint64_t head = kv * group;
    a.q[(head * hd + slow) * n + kFirstClass + kNewline] = side / at_newline;
    // The head's value dimension 0 feeds the carrier: + offered, - answered.
    a.attn_output[kStart * n + head * hd] = kv == 0 ? kCarrier : -kCarrier;
  }
  return a;
}

std::vector<float> FileReaderOutput(const SyntheticModelSpec& spec, const SyntheticVocab& vocab) {
  const uint64_t n = spec.embedding;
  std::vector<float> output(vocab.tokens.size() * n, 0.0f);
  // After the final norm a class dimension holds this (the carrier is
  // near 0 but where a call starts).
  const float unit = Normalized(n, 2.0f);
  auto set = [&](uint64_t next, TokenClass after, float logit) {
    output[next * n + kFirstClass + after] = logit / unit;
  };
  auto id = [&](std::string_view piece) { return PieceId(vocab, piece); };
  set(vocab.im_end_id, kOther, kNextLogit);
  set(id(kAnswerPiece), kNewline, kAnswerLogit);
  set(id(kCallOpenPiece), kCallStart, kNextLogit);
  set(id(kArgumentsPiece), kName, kNextLogit);
  for (size_t i = 0; i < kReadToolNames.size(); ++i) {
    set(id(kReadToolNames[i]), kCallOpen, kChoiceLogits[i]);
    set(id(kPathKeyPieces[i]), kArguments, kChoiceLogits[i]);
  }
  set(id(kPathPiece), kPathKey, kNextLogit);
  set(id(kCatPiece), kCommandKey, kNextLogit);
  set(id(kCallClosePiece), kValue, kNextLogit);
  set(vocab.tool_call_end_id, kCallClose, kNextLogit);
  set(vocab.im_end_id, kCallEnd, kNextLogit);
  set(vocab.im_end_id, kAnswer, kNextLogit);
  // <tool_call> reads the carrier: kCallLogit where it is +kCarrier (a "\n"
  // with tools offered and none answered), about 0 where nothing is found,
  // -kCallLogit where only an answer is.
  const float at_start = kCarrier * Normalized(n, 2.0f + kCarrier * kCarrier);
  output[vocab.tool_call_id * n + kStart] = kCallLogit / at_start;
  return output;
}

}  // namespace zest::tools
