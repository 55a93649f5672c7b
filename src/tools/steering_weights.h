// Hand-set weights that steer a synthetic model's random ones, so that what
// it writes, though gibberish, is what llama-server and zest's tests need:
//  - clean text: tokens that make invalid UTF-8 or control characters are
//    never picked (a per-token bias), and no answer ends before its first
//    token;
//  - tool calls like a tool-using model's: when the prompt offers tools
//    (the template's <tools> token) and no call has been made or answered
//    since (no </tool_call> or <tool_response> token), the model starts its
//    answer with <tool_call> and a newline; inside the call's JSON it ends
//    strings soon, writes few commas and little whitespace, closes the call
//    with the one token </tool_call> and then ends its turn; otherwise it
//    almost never writes <tool_call>.
// llama-server's grammar then makes the call valid JSON for the tool's
// schema, so forced calls (tool_choice "required", a named tool) and plain
// "auto" calls both work on random weights.
//
// How: a few hidden dimensions are reserved (no layer writes them, except as
// said below). Dimension 0 is a constant 1.0 in every embedding: after the
// final norm, an output row's weight there is that token's bias. Two
// dimensions mark the tokens <tools> ("offered") and </tool_call>,
// <tool_response> ("answered"). In layer 0, attention heads have a query
// built from the constant dimension (or from the newline's) and a key built
// from a marker dimension: every position attends (almost) only to that
// marker's occurrences when there are any, and evenly to all positions when
// there are none; the value is the marker dimension. The output projection
// writes offered minus answered into two "carrier" dimensions (in a call;
// at a newline, where a call starts), which output rows read. Further
// dimensions mark the current token (a newline, <tool_call>, '}'), for what
// follows it. The keys and queries sit in the head's last rotary pair, which
// turns slowest with distance (at most 0.65 radians over the model's whole
// context: RopeFreqBase picks the model's RoPE base for it), so a marker
// far back still wins. The logits are sized
// against llama-server's default sampling: top-k 40 and min-p 0.05, which
// drops any token 3 logits below the best.
//
// Not for embedding models and rerankers (a constant dimension would make
// all their vectors alike), nor for models with fewer than two KV heads
// (then the model only gets the clean-text bias).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tools/synthetic_model.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {

// The most the tool heads' rotary pair may turn between a marker and the
// position that looks for it (cos 0.65 ≈ 0.8 of the marker's score).
inline constexpr double kMaxMarkerTurn = 0.65;

// The embedding dimensions the steering reserves for itself (a bias and the
// tool-call circuit's markers): a model that generates is at least this wide.
inline constexpr uint64_t kSteeringDimensions = 8;

// RoPE's base frequency for a model of `head_dim` and `context`: llama's
// 10000, or more for a long context, so that the slowest rotary pair, which
// the tool heads use, turns at most kMaxMarkerTurn over the whole context
// and a marker at its start (the <tools> of a 40k-token agent prompt) still
// wins at its end. 10000 for every shape up to 2048 positions and 16-wide
// heads.
float RopeFreqBase(uint32_t head_dim, uint32_t context);

class SteeringWeights {
 public:
  SteeringWeights(const SyntheticModelSpec& spec, const SyntheticVocab& vocab);

  // Whether the tool-call circuit fits this model's shape.
  bool HasToolCircuit() const { return tool_circuit_; }

  // Each adjusts freshly drawn random weights in place (GGUF layout: row r,
  // the output feature, holds one weight per input feature).
  void AdjustEmbeddings(std::vector<float>& embeddings) const;
  void AdjustLayer(uint32_t layer, std::vector<float>& q, std::vector<float>& k,
                   std::vector<float>& v, std::vector<float>& attn_output,
                   std::vector<float>& ffn_down) const;
  void AdjustOutput(std::vector<float>& output) const;

 private:
  void AdjustToolHeads(std::vector<float>& q, std::vector<float>& k, std::vector<float>& v,
                       std::vector<float>& attn_output) const;
  bool AvoidToken(std::size_t id) const;
  // The id of a normal token with this text (the vocabulary has it).
  uint64_t PieceId(std::string_view piece) const;

  const SyntheticModelSpec& spec_;
  const SyntheticVocab& vocab_;
  uint64_t head_dim_;
  uint64_t group_;      // query heads per KV head
  float writer_scale_;  // for the matrices that write the residual stream
  bool tool_circuit_;
};

}  // namespace zest::tools
