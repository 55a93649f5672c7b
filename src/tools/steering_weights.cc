#include "tools/steering_weights.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "tools/random_weights.h"

namespace zest::tools {
namespace {

// The reserved hidden dimensions (the header says what each is for).
constexpr uint64_t kBias = 0;       // 1.0 in every embedding
constexpr uint64_t kOffered = 1;    // 1.0 in <tools>
constexpr uint64_t kAnswered = 2;   // 1.0 in </tool_call> and <tool_response>
constexpr uint64_t kNewline = 3;    // 1.0 in the byte token "\n"
constexpr uint64_t kInCall = 4;     // written by layer 0: offered, not answered
constexpr uint64_t kStartCall = 5;  // the same, at a "\n" only
constexpr uint64_t kOpened = 6;     // 1.0 in <tool_call>
constexpr uint64_t kClosed = 7;     // 1.0 in the byte token '}'
constexpr uint64_t kReserved = kSteeringDimensions;

// How much layer 0 writes into kInCall / kStartCall when its marker head
// finds the marker: small next to the bias dimension's 1.0, so the final
// norm shrinks the other logits only a little.
constexpr float kCarrier = 0.5f;

// Attention score (after llama.cpp's 1/sqrt(head_dim)) of a marker for its
// head: e^60 outweighs any number of unmarked positions, also after the
// rotary turn over a full context (at most kMaxMarkerTurn: RopeFreqBase).
constexpr float kMarkerScore = 60.0f;

// Target logits, with the roughly 450 other tokens near 0: a token at -8 is
// almost never picked, one at +12 almost always.
constexpr float kNever = -8.0f;
constexpr float kStartLogit = 12.0f;    // <tool_call> where a call should start
constexpr float kOpenLogit = 15.0f;     // "\n" after <tool_call>, as the template has it
constexpr float kNoCommaLogit = -8.0f;  // ',' after '}': no second call in the block
constexpr float kEndTurnLogit = 12.0f;  // <|im_end|> after </tool_call>
// Inside a call (added to the above): strings end soon, few commas (so
// objects end soon and no second call follows in the block), </tool_call>
// as one token (not '<' ...), and little whitespace between JSON tokens.
// The quote stays under 3: with min-p 0.05, a token 3 above the rest
// would be the only one left, and every string empty.
constexpr float kQuoteLogit = 2.0f;
constexpr float kCommaLogit = -2.0f;
constexpr float kAngleLogit = -6.0f;
constexpr float kSpaceLogit = -5.0f;

// The value a dimension holding 1.0 has after RMS normalisation of a vector
// of `n` dimensions in which the reserved ones hold `reserved_squares` (sum
// of squares) and the rest are random weights.
float Normalized(uint64_t n, float reserved_squares) {
  const float random_squares =
      static_cast<float>(n - kReserved) * kRandomWeightStd * kRandomWeightStd;
  return std::sqrt(static_cast<float>(n) / (reserved_squares + random_squares));
}

// What the layers add to the residual stream must stay small next to the
// reserved dimensions, or the final norm would shrink the steering logits
// (with std 0.02, a 24-layer, 1280-wide model adds a sum of squares in the
// thousands). Estimates per layer, for weights of std s and a normalised
// input (mean square 1): the feed-forward block adds about
// ff·n³·s⁶/4 (gate and up give s²n each, silu halves), attention at most
// s⁴n³ (all weight on one position). The matrices that write the residual
// are scaled so that all layers together add about kLayersBudget.
constexpr float kLayersBudget = 0.05f;

float WriterScale(const SyntheticModelSpec& spec) {
  const double s2 = static_cast<double>(kRandomWeightStd) * kRandomWeightStd;
  const double n = spec.embedding;
  const double feed_forward = spec.feed_forward * n * n * n * s2 * s2 * s2 / 4;
  const double attention = s2 * s2 * n * n * n;
  const double per_layer = kLayersBudget / spec.layers;
  return static_cast<float>(std::min(1.0, std::sqrt(per_layer / (feed_forward + attention))));
}

void ZeroRow(std::vector<float>& m, uint64_t row, uint64_t width) {
  std::fill_n(m.begin() + static_cast<std::ptrdiff_t>(row * width), width, 0.0f);
}

}  // namespace

float RopeFreqBase(uint32_t head_dim, uint32_t context) {
  constexpr double kLlamaBase = 10000.0;
  if (head_dim <= 2) return static_cast<float>(kLlamaBase);
  // The slowest pair turns base^(-(d-2)/d) a position.
  const double d = head_dim;
  const double needed = std::pow(context / kMaxMarkerTurn, d / (d - 2));
  return static_cast<float>(std::max(kLlamaBase, needed));
}

SteeringWeights::SteeringWeights(const SyntheticModelSpec& spec, const SyntheticVocab& vocab)
    : spec_(spec),
      vocab_(vocab),
      head_dim_(spec.embedding / spec.heads),
      group_(spec.heads / spec.kv_heads),
      writer_scale_(WriterScale(spec)),
      tool_circuit_(spec.generates() && spec.kv_heads >= 2 && group_ >= 2 && head_dim_ >= 4 &&
                    spec.embedding >= 2 * kReserved) {}

// <unk>, <s>, bytes 0x80-0xFF and control bytes other than \t, \n make text
// that is not clean UTF-8; the markers <tools> and <tool_response> and the
// fill-in-the-middle tokens belong in prompts only.
bool SteeringWeights::AvoidToken(std::size_t id) const {
  if (id == vocab_.unknown_id || id == vocab_.bos_id || id == vocab_.tools_id ||
      id == vocab_.tool_response_id || id == vocab_.fim_prefix_id || id == vocab_.fim_suffix_id ||
      id == vocab_.fim_middle_id) {
    return true;
  }
  if (vocab_.types[id] != kTokenByte) return false;
  const unsigned byte = std::stoul(vocab_.tokens[id].substr(3, 2), nullptr, 16);
  return byte >= 0x80 || byte == 0x7F || (byte < 0x20 && byte != '\t' && byte != '\n');
}

uint64_t SteeringWeights::PieceId(std::string_view piece) const {
  return static_cast<uint64_t>(std::find(vocab_.tokens.begin(), vocab_.tokens.end(), piece) -
                               vocab_.tokens.begin());
}

void SteeringWeights::AdjustEmbeddings(std::vector<float>& embeddings) const {
  if (!spec_.generates()) return;
  const uint64_t n = spec_.embedding;
  const uint64_t newline = kFirstByteToken + '\n';
  for (uint64_t t = 0; t < vocab_.tokens.size(); ++t) {
    float* row = embeddings.data() + t * n;
    std::fill_n(row, kReserved, 0.0f);
    row[kBias] = 1.0f;
    if (!tool_circuit_) continue;
    if (t == vocab_.tools_id) row[kOffered] = 1.0f;
    if (t == vocab_.tool_call_end_id || t == vocab_.tool_response_id) row[kAnswered] = 1.0f;
    if (t == newline) row[kNewline] = 1.0f;
    if (t == vocab_.tool_call_id) row[kOpened] = 1.0f;
    if (t == kFirstByteToken + '}') row[kClosed] = 1.0f;
  }
}

void SteeringWeights::AdjustLayer(uint32_t layer, std::vector<float>& q, std::vector<float>& k,
                                  std::vector<float>& v, std::vector<float>& attn_output,
                                  std::vector<float>& ffn_down) const {
  if (!spec_.generates()) return;
  for (float& w : attn_output) w *= writer_scale_;
  for (float& w : ffn_down) w *= writer_scale_;
  // No layer writes the reserved dimensions (layer 0's tool heads aside).
  for (uint64_t d = 0; d < kReserved; ++d) {
    ZeroRow(attn_output, d, spec_.embedding);
    ZeroRow(ffn_down, d, spec_.feed_forward);
  }
  if (layer == 0 && tool_circuit_) AdjustToolHeads(q, k, v, attn_output);
}

// KV head 0 keys and values on the "offered" marker, KV head 1 on the
// "answered" one. In each KV head's group, the first query head asks from
// every position (query from the bias dimension), the second from "\n"
// positions only. Their value dimension 0 goes to kInCall / kStartCall:
// offered minus answered.
void SteeringWeights::AdjustToolHeads(std::vector<float>& q, std::vector<float>& k,
                                      std::vector<float>& v,
                                      std::vector<float>& attn_output) const {
  const uint64_t n = spec_.embedding;
  const uint64_t hd = head_dim_;
  const uint64_t slow = hd - 2;  // the last rotary pair turns slowest
  // A query or key of this size gives kMarkerScore after 1/sqrt(hd).
  const float side = std::sqrt(kMarkerScore * std::sqrt(static_cast<float>(hd)));
  const float everywhere = Normalized(n, 1.0f);  // the bias dim at a plain position
  const float marked = Normalized(n, 2.0f);      // a marker (or "\n") at its own token
  struct Head {
    uint64_t kv;     // KV head
    uint64_t query;  // query head
    uint64_t asks_from;
    uint64_t writes;
    float sign;
  };
  const Head heads[] = {{0, 0, kBias, kInCall, 1.0f},
                        {0, 1, kNewline, kStartCall, 1.0f},
                        {1, group_, kBias, kInCall, -1.0f},
                        {1, group_ + 1, kNewline, kStartCall, -1.0f}};
  for (uint64_t kv = 0; kv < 2; ++kv) {
    const uint64_t marker = kv == 0 ? kOffered : kAnswered;
    const uint64_t key_row = kv * hd + slow;
    ZeroRow(k, key_row, n);
    ZeroRow(k, key_row + 1, n);
    k[key_row * n + marker] = side / marked;
    ZeroRow(v, kv * hd, n);
    v[kv * hd * n + marker] = 1.0f / marked;  // 1.0 where the marker is
  }
  for (const Head& h : heads) {
    for (uint64_t r = h.query * hd; r < (h.query + 1) * hd; ++r) ZeroRow(q, r, n);
    const float at = h.asks_from == kBias ? everywhere : marked;
    q[(h.query * hd + slow) * n + h.asks_from] = side / at;
    // The head's value dimension 0 feeds only its carrier dimension.
    const uint64_t column = h.query * hd;
    for (uint64_t row = 0; row < n; ++row) attn_output[row * n + column] = 0.0f;
    attn_output[h.writes * n + column] = h.sign * kCarrier;
  }
}

void SteeringWeights::AdjustOutput(std::vector<float>& output) const {
  if (!spec_.generates()) return;
  const uint64_t n = spec_.embedding;
  // The final norm divides by the residual's size, which the reserved
  // dimensions dominate, so each weight is sized for the positions it acts
  // at: their reserved dimensions' sum of squares.
  constexpr float kCarried = kCarrier * kCarrier;
  const float plain = Normalized(n, 1.0f);
  const float in_call = Normalized(n, 1.0f + kCarried);
  const float at_start = Normalized(n, 2.0f + 2 * kCarried);  // "\n" and both carriers
  const float after_marker = Normalized(n, 2.0f + kCarried);  // <tool_call> or '}' in a call
  for (uint64_t t = 0; t < vocab_.tokens.size(); ++t) {
    float* row = output.data() + t * n;
    std::fill_n(row, kReserved, 0.0f);
    if (AvoidToken(t)) row[kBias] = kNever / at_start;  // the smallest norm: everywhere below
  }
  if (!tool_circuit_) return;
  auto weight = [&](uint64_t token, uint64_t dim) -> float& { return output[token * n + dim]; };
  auto byte = [](char c) -> uint64_t { return kFirstByteToken + static_cast<unsigned char>(c); };
  float& start_bias = weight(vocab_.tool_call_id, kBias);
  start_bias = kNever / plain;
  weight(vocab_.tool_call_id, kStartCall) = (kStartLogit / at_start - start_bias) / kCarrier;
  // llama-server's grammar begins a call at "<tool_call>\n": until the
  // "\n" comes, what follows <tool_call> is still free text.
  weight(byte('\n'), kOpened) = kOpenLogit / after_marker;
  // llama-server's grammar takes more calls in one block, comma-separated:
  // after a '}' no comma, so the call's closing '}' is followed by
  // </tool_call> (one token: '<' and whitespace are unlikely in a call), and
  // that token makes the call "answered": then the turn ends.
  for (const uint64_t comma : {byte(','), PieceId(",")}) {
    weight(comma, kClosed) = kNoCommaLogit / after_marker;
  }
  // And after </tool_call> (its embedding has the answered marker), the end
  // of the turn: the grammar would take another block.
  weight(vocab_.im_end_id, kAnswered) = kEndTurnLogit / Normalized(n, 2.0f);
  // No end of turn right after a newline, so no answer is empty: the
  // generation prompt ends in one. (Elsewhere the end of turn is one token
  // among the rest: answers stop on their own after some 40 tokens.)
  for (const uint64_t end : {uint64_t{vocab_.eos_id}, uint64_t{vocab_.im_end_id}}) {
    weight(end, kNewline) = kNever / Normalized(n, 2.0f);
  }
  for (const auto& [token, logit] : {std::pair{byte('"'), kQuoteLogit},
                                     {byte(','), kCommaLogit},
                                     {PieceId(","), kCommaLogit},
                                     {byte('<'), kAngleLogit},
                                     {byte(' '), kSpaceLogit},
                                     {byte('\t'), kSpaceLogit},
                                     {byte('\n'), kSpaceLogit},
                                     {vocab_.word_start_id, kSpaceLogit}}) {
    weight(token, kInCall) = logit / (in_call * kCarrier);
  }
}

}  // namespace zest::tools
