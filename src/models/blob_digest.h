// BlobDigests: whether a file still holds the bytes its content digest
// names (an Ollama blob, "sha256:<hex>"). Hashing a model takes seconds per
// GiB, so nothing is hashed while listing: a file is hashed when it is first
// served, and the verdict is kept by path, size and mtime, so it is hashed
// again only after it changed on disk. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/mutex.h"
#include "core/result.h"

namespace zest::models {

// The lowercase hex sha256 of the file's bytes.
Result<std::string> FileSha256(const std::filesystem::path& file);

class BlobDigests {
 public:
  // Ok when `file` hashes to `sha256` (lowercase hex); otherwise why not,
  // naming the file, the digest it should have and the one it has.
  Status Verify(const std::filesystem::path& file, const std::string& sha256);
  // The verdict already known for the file as it is now, without hashing:
  // nullopt when it was never hashed or changed since.
  std::optional<Status> Known(const std::filesystem::path& file, const std::string& sha256);

 private:
  struct Verdict {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    std::string expected;
    Status status;
  };
  Mutex mu_;
  std::map<std::string, Verdict> verdicts_ GUARDED_BY(mu_);  // by path
};

}  // namespace zest::models
