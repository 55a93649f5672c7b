// Designed weights (neither random nor trained) for the "tiny-file-reader"
// preset: a synthetic model that, offered a coding agent's tools, calls the
// agent's read tool on kReadPath, and given the tool's result answers
// kReaderAnswer and ends its turn. What the coding-agent tests
// (tests/agents/) run, so that a turn's tool round trip is a file really
// read, not whatever tool a random model happened to call.
//
// The call is a chain of tokens the preset adds to the synthetic vocabulary
// (FileReaderVocab; no merge reaches them, so prompts tokenize as on every
// other synthetic model), each with its successor chosen by the current
// token alone (a bigram, as in quote_brace_weights.h):
//   <tool_call> \n{"name": " NAME ", "arguments": {" KEY": " VALUE "}} </tool_call> <|im_end|>
// That is the Hermes call llama-server's tool-call grammar takes for the
// synthetic template (tried on build 11669: the tools' names in the order
// given, `"name"` before `"arguments"`, required keys first). Which tool and
// which key depend on what the client offers; the model does not read its
// tool list: it prefers every client's name (and key) in turn, by wide
// gaps, and the grammar, which allows only the names offered and the chosen
// tool's first required key, masks the rest, so the best allowed one is the
// client's. Names: read_file (Qwen Code) > Read (Claude Code, Continue) >
// read (opencode) > exec_command (Codex, which has no read tool: the
// value is then `cat kReadPath`); keys: file_path > filePath > filepath >
// cmd. A longer name goes first where one is a prefix of another.
//
// Whether to call at all is the tool-call circuit of steering_weights.h,
// rebuilt on designed weights: in layer 0, one attention head finds the
// <tools> marker ("offered") and one finds </tool_call> or <tool_response>
// ("answered"), both asking from a "\n" position (the generation prompt's
// last token); the two write offered minus answered into a carrier
// dimension there. After "\n", <tool_call> gets kCallLogit times the
// carrier, and the answer kAnswerLogit: a call when tools are offered and
// none was answered yet, else the answer. The rest of the model adds
// nothing (the other layers' and the feed-forward matrices are zero), and
// every token's embedding is a one-hot of its class (what follows it) and a
// constant, so the logits follow from the current token and the carrier.
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tools/synthetic_model.h"
#include "tools/synthetic_vocab.h"

namespace zest::tools {

// The file every call reads: the agents' scratch project is bound at
// /scratch in their sandbox, so the model can write the path as a constant.
inline constexpr std::string_view kReadPath = "/scratch/a.txt";
// What the model answers once a call was answered (or when no tools are
// offered): one token.
inline constexpr std::string_view kReaderAnswer = "I read the file.";

// The logits, over 0 for every token not named. A single successor gets
// kNextLogit; the graded choices kChoiceLogits, best first (e^-20 makes
// the last still certain at temperature 1 without min-p).
inline constexpr float kNextLogit = 40.0f;
inline constexpr std::array<float, 4> kChoiceLogits = {80.0f, 60.0f, 40.0f, 20.0f};
inline constexpr float kCallLogit = 40.0f;    // <tool_call> after "\n", offered and not answered
inline constexpr float kAnswerLogit = 20.0f;  // the answer after "\n"

// The pieces the preset adds, in SentencePiece form ("▁" for a space).
inline constexpr std::string_view kCallOpenPiece = "\n{\"name\":\xE2\x96\x81\"";
inline constexpr std::array<std::string_view, 4> kReadToolNames = {"read_file", "Read", "read",
                                                                   "exec_command"};
inline constexpr std::string_view kArgumentsPiece = "\",\xE2\x96\x81\"arguments\":\xE2\x96\x81{\"";
inline constexpr std::array<std::string_view, 4> kPathKeyPieces = {
    "file_path\":\xE2\x96\x81\"", "filePath\":\xE2\x96\x81\"", "filepath\":\xE2\x96\x81\"",
    "cmd\":\xE2\x96\x81\""};
inline constexpr std::string_view kPathPiece = "/scratch/a.txt";
inline constexpr std::string_view kCatPiece = "cat\xE2\x96\x81/scratch/a.txt";
inline constexpr std::string_view kCallClosePiece = "\"}}";
inline constexpr std::string_view kAnswerPiece =
    "I\xE2\x96\x81read\xE2\x96\x81the\xE2\x96\x81"
    "file.";

// The synthetic vocabulary with the pieces above appended (normal tokens
// after the fill-in-the-middle ones; every other id unchanged).
SyntheticVocab FileReaderVocab();

// The narrowest shape the preset's dimensions fit: a bias, two markers, the
// carrier and one per class of token.
uint32_t FileReaderMinEmbedding();

// Layer 0's attention matrices (GGUF layout: row r, the output feature,
// holds one weight per input feature); every other matrix is zero.
struct FileReaderAttention {
  std::vector<float> q, k, v, attn_output;
};

// token_embd.weight, layer 0's attention and output.weight for `spec`
// (spec.embedding at least FileReaderMinEmbedding(), at least 2 KV heads)
// and `vocab` (FileReaderVocab()).
std::vector<float> FileReaderEmbeddings(const SyntheticModelSpec& spec,
                                        const SyntheticVocab& vocab);
FileReaderAttention FileReaderLayer0(const SyntheticModelSpec& spec);
std::vector<float> FileReaderOutput(const SyntheticModelSpec& spec, const SyntheticVocab& vocab);

}  // namespace zest::tools
