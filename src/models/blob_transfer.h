// The byte-moving half of the Downloader (internal to models/): fetching
// byte ranges of one blob into an open file with retries, recording range
// progress in the sidecar, and sha256 hashing. Downloader decides what to
// fetch; this file knows how.
#pragma once

#include <openssl/evp.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "models/downloader.h"
#include "models/transfer_policy.h"

namespace zest::models {

// Incremental sha256 (OpenSSL EVP).
class Sha256 {
 public:
  Sha256();
  void Update(const void* data, std::size_t n);
  std::string HexDigest();  // lower-case; ends the computation

 private:
  struct CtxDeleter {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx_;
};

// Hashes a download on its own thread while it arrives: it follows the
// file's contiguous written prefix (everything before the first range, then
// each range's written bytes while the ranges before it are complete),
// reading it back from the page cache. The network, the disk and sha256 then
// work in parallel, and the digest is ready moments after the last byte,
// for one connection or several.
class FollowingHasher {
 public:
  // `ranges`: what is still to be fetched, in file order, tiling [ranges[0].start, size).
  FollowingHasher(int fd, uint64_t size, const std::vector<ByteRange>& ranges);
  ~FollowingHasher();  // stops the thread if Finish() was not reached
  FollowingHasher(const FollowingHasher&) = delete;
  FollowingHasher& operator=(const FollowingHasher&) = delete;

  // Range `index` now has its bytes up to `frontier` (absolute offset) on disk.
  void Advance(std::size_t index, uint64_t frontier) {
    frontiers_[index].store(frontier, std::memory_order_release);
  }

  // Waits until the whole file is hashed; the lower-case hex sha256, or
  // the read error.
  Result<std::string> Finish();

 private:
  void Run();
  uint64_t ContiguousEnd() const;

  const int fd_;
  const uint64_t size_;
  std::vector<ByteRange> ranges_;  // start/end only
  std::unique_ptr<std::atomic<uint64_t>[]> frontiers_;
  std::atomic<bool> abort_{false};
  Sha256 sha_;
  Status status_;       // written by the thread, read after it joined
  std::string digest_;  // likewise
  std::thread thread_;
};

struct TransferTarget {
  const BlobRequest* request = nullptr;
  const DownloadOptions* options = nullptr;
  int fd = -1;                                 // the .incomplete file
  int sidecar_fd = -1;                         // range records, or -1 (one range, no sidecar)
  std::atomic<uint64_t>* completed = nullptr;  // bytes of the file on disk, for progress
  const std::atomic<bool>* stop = nullptr;
  FollowingHasher* hasher = nullptr;  // told of every write; may be null
};

// Fetches what is left of `range` (index `index` in the sidecar), retrying
// transient failures. Returns Ok once the range is complete.
Status TransferRange(const TransferTarget& target, ByteRange& range, std::size_t index);

// All ranges, one thread each (the calling thread when there is one).
Status TransferRanges(const TransferTarget& target, std::vector<ByteRange>& ranges);

}  // namespace zest::models
