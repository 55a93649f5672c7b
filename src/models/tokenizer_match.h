// Whether two GGUF models share one tokenizer: what speculative decoding
// needs of a draft model, since the engine hands token ids, not text,
// between the draft and the target. Checked from the files, never guessed
// from names: the tokenizer kind, the whole token list and the special
// token ids (BOS, EOS, end of turn, padding...). Thread-safe.
#pragma once

#include <filesystem>

#include "core/result.h"
#include "models/gguf_reader.h"

namespace zest::models {

// Ok when `draft` tokenizes as `target` does; else kInvalidArgument saying
// the first difference ("the draft's token 17 is 'foo', the target's
// 'bar'"). A file without a token list differs from every other.
Status CheckSameTokenizer(const GgufFile& target, const GgufFile& draft);

// The same for two files on disk: reads both headers the first time, then
// remembers the answer while neither file changes (size, mtime). Thread-safe.
Status CheckSameTokenizer(const std::filesystem::path& target, const std::filesystem::path& draft);

}  // namespace zest::models
