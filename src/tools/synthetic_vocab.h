// The vocabulary of synthetic models: a SentencePiece-style ("llama")
// vocabulary with byte fallback, so any text tokenizes (unknown characters
// become <0xNN> byte tokens) and llama-server's SPM tokenizer finds every
// merge it needs (each word piece's prefixes are pieces too). Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zest::tools {

// llama.cpp token attribute types (tokenizer.ggml.token_type).
enum SpmTokenType : int32_t {
  kTokenNormal = 1,
  kTokenUnknown = 2,
  kTokenControl = 3,
  kTokenUserDefined = 4,  // matched in any text, written out as text
  kTokenByte = 6,
};

// Token <0xNN> is kFirstByteToken + NN.
inline constexpr uint32_t kFirstByteToken = 5;

struct SyntheticVocab {
  std::vector<std::string> tokens;
  std::vector<float> scores;
  std::vector<int32_t> types;
  uint32_t unknown_id = 0;
  uint32_t bos_id = 1;
  uint32_t eos_id = 2;
  uint32_t im_start_id = 3;
  uint32_t im_end_id = 4;
  uint32_t word_start_id = 0;  // "▁", a space
  // The tool-call markers of the chat template, one user-defined token each
  // (after the word pieces): what the steering weights key on.
  uint32_t tool_call_id = 0;      // <tool_call>
  uint32_t tool_call_end_id = 0;  // </tool_call>
  uint32_t tools_id = 0;          // <tools>
  uint32_t tool_response_id = 0;  // <tool_response>
  // Fill in the middle (control tokens, Qwen2.5-Coder's names), after the
  // tool-call markers: <|fim_prefix|>, <|fim_suffix|>, <|fim_middle|>.
  uint32_t fim_prefix_id = 0;
  uint32_t fim_suffix_id = 0;
  uint32_t fim_middle_id = 0;
};

// Always the same vocabulary (it does not depend on the seed): <unk>, <s>,
// </s>, <|im_start|>, <|im_end|>, 256 byte tokens, then word pieces with
// descending scores, then the tool-call markers and the fill-in-the-middle
// tokens.
SyntheticVocab BuildSyntheticVocab();

// A ChatML template with tool calls (the Hermes convention: the .cc says
// more): each message as "<|im_start|>role\ncontent<|im_end|>\n",
// then "<|im_start|>assistant\n" when a generation prompt is wanted.
const std::string& ChatMlTemplate();

}  // namespace zest::tools
