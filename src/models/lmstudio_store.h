// LmStudioStore: the GGUF files LM Studio downloaded, read in place (never
// written). Its models directory (~/.lmstudio/models, or
// ~/.cache/lm-studio/models before LM Studio 0.3) holds
// <publisher>/<repo>/<file>.gguf, the Hugging Face repo's files as they
// were, with a vision projector (mmproj-*.gguf) beside its model. Each
// <publisher>/<repo> is listed as a store repo, so its models get the names
// the Hugging Face store gives ("publisher/repo:Q4_K_M", or
// "publisher/repo/<file>" where a label does not tell them apart:
// models/store_naming.h) and its projectors and shard sets are grouped the
// same way.
#pragma once

#include <filesystem>
#include <vector>

#include "models/hf_store.h"

namespace zest::models {

class LmStudioStore {
 public:
  explicit LmStudioStore(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }

  // Every *.gguf directly in a <publisher>/<repo> directory (or one level
  // below it, as a repo's quantization folders are), as store files:
  // repo "publisher/repo", path relative to the repo, no commit.
  std::vector<StoreFile> ListModelFiles() const;

 private:
  std::filesystem::path root_;
};

}  // namespace zest::models
