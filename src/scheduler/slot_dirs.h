// SlotDirs: where engines keep their saved slots (a conversation's KV
// cache, slot_cache.h): one directory per model, kept across unloads, and
// the handoff directory of the experimental prefill/decode split (replicas
// save and restore there). Immutable; any thread.
#pragma once

#include <filesystem>
#include <string>

namespace zest::scheduler {

class SlotDirs {
 public:
  // Either may be empty: slots are not kept across unloads, or there is no
  // prefill/decode split.
  SlotDirs(std::filesystem::path slot_dir, std::filesystem::path handoff_dir)
      : slot_dir_(std::move(slot_dir)), handoff_dir_(std::move(handoff_dir)) {}

  // Where the model's slots are kept across unloads; empty when they are
  // not. A directory of the model's under its old name (OldSafeFileName)
  // is renamed to it first.
  std::filesystem::path Saved(const std::string& model) const;

  // The --slot-save-path of an instance of `model`: the model's slot
  // directory, a replica's none; the handoff directory when that leaves none.
  std::filesystem::path ForEngine(const std::string& model, bool replica) const;

 private:
  std::filesystem::path slot_dir_;
  std::filesystem::path handoff_dir_;
};

}  // namespace zest::scheduler
