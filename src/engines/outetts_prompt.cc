#include "engines/outetts_prompt.h"

#include <algorithm>
#include <array>

namespace zest::engines {

namespace {

constexpr std::array<const char*, 10> kDigits = {"zero", "one", "two",   "three", "four",
                                                 "five", "six", "seven", "eight", "nine"};

bool IsSeparator(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '-' || c == '_' || c == '/' ||
         c == ',' || c == '.' || c == '\\';
}

// Appends `word` to `out`, a space first unless it is the first.
void AddWord(std::string& out, std::string_view word) {
  if (word.empty()) return;
  if (!out.empty()) out += ' ';
  out += word;
}

}  // namespace

std::string OuteTtsWords(std::string_view text) {
  std::string out;
  std::string word;
  for (char c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c >= 'a' && c <= 'z') {
      word += c;
    } else if (c >= '0' && c <= '9') {
      AddWord(out, word);
      word.clear();
      AddWord(out, kDigits[static_cast<size_t>(c - '0')]);
    } else if (IsSeparator(c)) {
      AddWord(out, word);
      word.clear();
    }  // anything else (punctuation, bytes of non-ASCII letters) is dropped
  }
  AddWord(out, word);
  return out;
}

std::string OuteTtsPrompt(std::string_view text) {
  const std::string words = OuteTtsWords(text);
  if (words.empty()) return "";
  std::string joined;
  for (char c : words) {
    if (c == ' ') {
      joined += "<|text_sep|>";
    } else {
      joined += c;
    }
  }
  return "<|im_start|>\n<|text_start|>" + joined + "<|text_end|>\n<|audio_start|>\n";
}

std::vector<int32_t> OuteTtsCodes(const std::vector<int32_t>& tokens) {
  std::vector<int32_t> codes;
  for (int32_t t : tokens) {
    if (t >= kOuteTtsFirstCode && t < kOuteTtsFirstCode + kWavTokenizerCodes) {
      codes.push_back(t - kOuteTtsFirstCode);
    }
  }
  return codes;
}

std::optional<size_t> OuteTtsTooLong(std::string_view text, int max_tokens, int context) {
  if (context <= 0) return std::nullopt;
  const uint64_t prompt = OuteTtsPrompt(text).size() + 1;  // and a BOS
  const uint64_t needed = prompt + static_cast<uint64_t>(std::max(max_tokens, 0));
  if (needed <= static_cast<uint64_t>(context)) return std::nullopt;
  uint64_t chars = 0;
  for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return static_cast<size_t>(chars * static_cast<uint64_t>(context) / needed);
}

}  // namespace zest::engines
