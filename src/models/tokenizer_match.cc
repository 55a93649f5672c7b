#include "models/tokenizer_match.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/file_memo.h"

namespace zest::models {
namespace {

constexpr const char* kTokens = "tokenizer.ggml.tokens";

// The special tokens llama.cpp reads by id: a draft that ends or pads
// with other ids would stop where the target does not.
constexpr const char* kSpecialIds[] = {
    "tokenizer.ggml.bos_token_id",      "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.eot_token_id",      "tokenizer.ggml.eom_token_id",
    "tokenizer.ggml.unknown_token_id",  "tokenizer.ggml.padding_token_id",
    "tokenizer.ggml.separator_token_id"};

const std::vector<std::string>* TokenList(const GgufFile& file) {
  const GgufValue* value = file.Find(kTokens);
  return value == nullptr ? nullptr : std::get_if<std::vector<std::string>>(&value->value);
}

std::string SpecialId(const GgufFile& file, const std::string& key) {
  return file.Find(key) == nullptr ? "none" : std::to_string(file.GetUint(key));
}

// The answers for pairs already compared. Placement asks for every plan it
// weighs (several a second while a load waits for memory), and reading two
// token lists of 150,000 strings each time would stall it.
using CheckedPairs = FileMemo<std::pair<FileIdentity, FileIdentity>, Status>;

CheckedPairs& Checked() {
  static CheckedPairs pairs(256);
  return pairs;
}

}  // namespace

Status CheckSameTokenizer(const GgufFile& target, const GgufFile& draft) {
  const std::vector<std::string>* t = TokenList(target);
  const std::vector<std::string>* d = TokenList(draft);
  if (t == nullptr || d == nullptr) {
    return InvalidArgument(std::string(t == nullptr ? "the target" : "the draft") +
                           " has no token list to compare");
  }
  const std::string t_model = target.GetString("tokenizer.ggml.model");
  const std::string d_model = draft.GetString("tokenizer.ggml.model");
  if (t_model != d_model) {
    return InvalidArgument("the draft's tokenizer is '" + d_model + "', the target's '" + t_model +
                           "'");
  }
  if (t->size() != d->size()) {
    return InvalidArgument("the draft's vocabulary has " + std::to_string(d->size()) +
                           " tokens, the target's " + std::to_string(t->size()));
  }
  for (std::size_t i = 0; i < t->size(); ++i) {
    if ((*t)[i] != (*d)[i]) {
      return InvalidArgument("the draft's token " + std::to_string(i) + " is '" + (*d)[i] +
                             "', the target's '" + (*t)[i] + "'");
    }
  }
  for (const char* key : kSpecialIds) {
    const std::string t_id = SpecialId(target, key);
    const std::string d_id = SpecialId(draft, key);
    if (t_id != d_id) {
      return InvalidArgument(std::string("the draft's ") + key + " is " + d_id + ", the target's " +
                             t_id);
    }
  }
  return Status::Ok();
}

Status CheckSameTokenizer(const std::filesystem::path& target, const std::filesystem::path& draft) {
  auto compare = [&]() -> Status {
    ZEST_ASSIGN_OR_RETURN(const GgufFile t, ReadGguf(target));
    ZEST_ASSIGN_OR_RETURN(const GgufFile d, ReadGguf(draft));
    return CheckSameTokenizer(t, d);
  };
  const std::optional<FileIdentity> t_key = IdentityOf(target);
  const std::optional<FileIdentity> d_key = IdentityOf(draft);
  if (!t_key || !d_key) return compare();  // unreadable: ReadGguf says why
  return Checked().Get({*t_key, *d_key}, compare);
}

}  // namespace zest::models
