// FileIdentity and FileMemo: answers computed from files (a GGUF header
// read, a token list compared), remembered while the files are unchanged.
// Placement plans several times a second while a load waits for memory, and
// re-reading a header of 150,000 token strings, or a vocoder, each time
// would stall the thread that plans. A file counts as unchanged while its
// path, size and modification time are; a rewritten file is another, so its
// answer is computed afresh. FileMemo is thread-safe; its owner decides how
// long it lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/mutex.h"

namespace zest {

// A file's identity: its path, size and modification time.
struct FileIdentity {
  std::string path;
  uint64_t size = 0;
  int64_t mtime = 0;  // the file clock's ticks

  auto operator<=>(const FileIdentity&) const = default;
};

// `path`'s identity; nullopt when it cannot be stat'ed (then nothing is
// remembered for it, and its answer is computed each time).
std::optional<FileIdentity> IdentityOf(const std::filesystem::path& path);

// Answers by `Key` (a FileIdentity, or a tuple of them), at most
// `max_entries`: past that it starts over, which bounds its memory however
// many files come and go.
template <typename Key, typename Value>
class FileMemo {
 public:
  explicit FileMemo(std::size_t max_entries) : max_entries_(max_entries) {}

  // The answer remembered for `key`, else `compute()`'s, remembered. Compute
  // runs without the lock (it reads files): two callers may both compute a
  // new key, and the answers, being of the same files, are the same.
  template <typename Compute>
  Value Get(const Key& key, Compute&& compute) {
    {
      MutexLock lock(mu_);
      auto it = answers_.find(key);
      if (it != answers_.end()) return it->second;
    }
    Value value = std::forward<Compute>(compute)();
    MutexLock lock(mu_);
    if (answers_.size() >= max_entries_) answers_.clear();
    answers_.insert_or_assign(key, value);
    return value;
  }

 private:
  const std::size_t max_entries_;
  Mutex mu_;
  std::map<Key, Value> answers_ GUARDED_BY(mu_);
};

}  // namespace zest
