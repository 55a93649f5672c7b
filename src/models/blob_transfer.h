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

// Feeds the first `length` bytes of `fd` into `hasher` (stops early,
// returning kCancelled, when `stop` is set).
Status HashPrefix(int fd, uint64_t length, Sha256& hasher, const std::atomic<bool>& stop);

struct TransferTarget {
  const BlobRequest* request = nullptr;
  const DownloadOptions* options = nullptr;
  int fd = -1;                              // the .incomplete file
  int sidecar_fd = -1;                      // range records, or -1 (one range, no sidecar)
  std::atomic<uint64_t>* completed = nullptr;  // bytes of the file on disk, for progress
  const std::atomic<bool>* stop = nullptr;
  Sha256* hasher = nullptr;                 // fed in order; only with a single range
};

// Fetches what is left of `range` (index `index` in the sidecar), retrying
// transient failures. Returns Ok once the range is complete.
Status TransferRange(const TransferTarget& target, ByteRange& range, std::size_t index);

// All ranges, one thread each (the calling thread when there is one).
Status TransferRanges(const TransferTarget& target, std::vector<ByteRange>& ranges);

}  // namespace zest::models
