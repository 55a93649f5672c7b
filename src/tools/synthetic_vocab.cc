#include "tools/synthetic_vocab.h"

#include <array>
#include <cstdio>
#include <set>
#include <string_view>

namespace zest::tools {
namespace {

// SentencePiece marks a word start with U+2581 ("▁").
constexpr std::string_view kWordStart = "\xE2\x96\x81";

constexpr std::array<std::string_view, 96> kWords = {
    "the",   "a",      "and",   "of",   "to",    "in",     "is",   "it",    "you",  "that",
    "he",    "was",    "for",   "on",   "are",   "with",   "as",   "I",     "his",  "they",
    "be",    "at",     "one",   "have", "this",  "from",   "or",   "had",   "by",   "not",
    "word",  "but",    "what",  "some", "we",    "can",    "out",  "other", "were", "all",
    "there", "when",   "up",    "use",  "your",  "how",    "said", "an",    "each", "she",
    "which", "do",     "their", "time", "if",    "will",   "way",  "about", "many", "then",
    "them",  "write",  "would", "like", "so",    "these",  "her",  "long",  "make", "thing",
    "see",   "him",    "two",   "has",  "look",  "more",   "day",  "could", "go",   "come",
    "did",   "number", "sound", "no",   "most",  "people", "my",   "over",  "know", "water",
    "than",  "call",   "first", "who",  "hello", "model"};

constexpr std::array<std::string_view, 12> kSuffixes = {"ing",  "ed",   "er",   "ly",  "es", "s",
                                                        "tion", "ment", "ness", "est", "al", "ful"};

class VocabBuilder {
 public:
  explicit VocabBuilder(SyntheticVocab& vocab) : vocab_(vocab) {}

  void Add(std::string piece, float score, SpmTokenType type) {
    if (!seen_.insert(piece).second) return;
    vocab_.tokens.push_back(std::move(piece));
    vocab_.scores.push_back(score);
    vocab_.types.push_back(type);
  }
  // Adds every prefix of `piece` (by byte; all are ASCII after the marker),
  // so the SPM merge of adjacent pieces can build it up step by step.
  void AddWithPrefixes(const std::string& piece, size_t first_prefix) {
    for (size_t n = first_prefix; n <= piece.size(); ++n)
      Add(piece.substr(0, n), NextScore(), kTokenNormal);
  }
  float NextScore() { return -static_cast<float>(next_rank_++); }

 private:
  SyntheticVocab& vocab_;
  std::set<std::string> seen_;
  int next_rank_ = 1;
};

}  // namespace

SyntheticVocab BuildSyntheticVocab() {
  SyntheticVocab vocab;
  VocabBuilder builder(vocab);
  builder.Add("<unk>", 0, kTokenUnknown);
  builder.Add("<s>", 0, kTokenControl);
  builder.Add("</s>", 0, kTokenControl);
  builder.Add("<|im_start|>", 0, kTokenControl);
  builder.Add("<|im_end|>", 0, kTokenControl);
  for (int byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", byte);
    builder.Add(name, 0, kTokenByte);
  }
  const std::string word_start(kWordStart);
  builder.Add(word_start, builder.NextScore(), kTokenNormal);
  vocab.word_start_id = static_cast<uint32_t>(vocab.tokens.size() - 1);
  // Single characters first (highest scores after "▁"), then word starts.
  for (char c = 'a'; c <= 'z'; ++c)
    builder.Add(std::string(1, c), builder.NextScore(), kTokenNormal);
  for (std::string_view p : {".", ",", "!", "?", "'", "-", ":"})
    builder.Add(std::string(p), builder.NextScore(), kTokenNormal);
  for (char c = 'a'; c <= 'z'; ++c) builder.Add(word_start + c, builder.NextScore(), kTokenNormal);
  for (std::string_view word : kWords)
    builder.AddWithPrefixes(word_start + std::string(word), word_start.size() + 1);
  for (std::string_view suffix : kSuffixes) builder.AddWithPrefixes(std::string(suffix), 1);
  // One token each, after the word pieces: what the chat template and the
  // steering weights use.
  auto add_special = [&](const char* text, SpmTokenType type) {
    builder.Add(text, 0, type);
    return static_cast<uint32_t>(vocab.tokens.size() - 1);
  };
  vocab.tool_call_id = add_special("<tool_call>", kTokenUserDefined);
  vocab.tool_call_end_id = add_special("</tool_call>", kTokenUserDefined);
  vocab.tools_id = add_special("<tools>", kTokenUserDefined);
  vocab.tool_response_id = add_special("<tool_response>", kTokenUserDefined);
  vocab.fim_prefix_id = add_special("<|fim_prefix|>", kTokenControl);
  vocab.fim_suffix_id = add_special("<|fim_suffix|>", kTokenControl);
  vocab.fim_middle_id = add_special("<|fim_middle|>", kTokenControl);
  return vocab;
}

// ChatML with tool calls in the Hermes convention (the one Qwen 2.5 and
// Hermes models use): the tools listed in the system turn inside <tools>,
// each call the assistant makes as {"name", "arguments"} inside
// <tool_call></tool_call>, each result in a user turn inside
// <tool_response>. The system turn names no closing tag or response tag
// (the steering weights read those as "a call was made"). llama-server recognises the convention
// from the template, so it turns such calls into OpenAI tool_calls and enforces a forced call
// (tool_choice "required" or a named tool) with a grammar.
const std::string& ChatMlTemplate() {
  static const std::string kTemplate =
      "{% if tools %}<|im_start|>system\n"
      "{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}\n\n{% endif %}"
      "# Tools\n\nTo call a function, answer with <tool_call>, then its name and arguments "
      "as {\"name\": <function-name>, \"arguments\": <args-json-object>}, then the closing "
      "tag.\n\nThe functions:\n<tools>\n"
      "{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}</tools><|im_end|>\n"
      "{% elif messages[0]['role'] == 'system' %}"
      "<|im_start|>system\n{{ messages[0]['content'] }}<|im_end|>\n"
      "{% endif %}"
      "{% for message in messages %}"
      "{% if message['role'] == 'assistant' %}"
      "<|im_start|>assistant\n"
      "{% if message['tool_calls'] %}{% for call in message['tool_calls'] %}"
      "{% if not loop.first %}\n{% endif %}"
      "<tool_call>\n{\"name\": \"{{ call['function']['name'] }}\", \"arguments\": "
      "{% if call['function']['arguments'] is string %}{{ call['function']['arguments'] }}"
      "{% else %}{{ call['function']['arguments'] | tojson }}{% endif %}}\n</tool_call>"
      "{% endfor %}{% elif message['content'] %}{{ message['content'] }}{% endif %}<|im_end|>\n"
      "{% elif message['role'] == 'tool' %}"
      "<|im_start|>user\n<tool_response>\n{{ message['content'] }}\n</tool_response><|im_end|>\n"
      "{% elif message['role'] != 'system' or not loop.first %}"
      "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
      "{% endif %}"
      "{% endfor %}"
      "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
  return kTemplate;
}

}  // namespace zest::tools
