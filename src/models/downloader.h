// Downloader: brings one blob of a hub repo into the store, verified.
//
// A download writes into blobs/<sha256>.incomplete and resumes from what is
// already there (Range requests). Large files are fetched over several
// connections, each range written at its offset, with per-range progress in
// a sidecar (<sha256>.incomplete.ranges) so a crash resumes every range.
// Failures that may pass (5xx, 429, timeouts, resets, stalls) are retried
// with exponential backoff and jitter, honouring Retry-After. The sha256 is
// checked before HfStore::Publish moves the file into place; on a mismatch
// the partial file is deleted and nothing is published. Free disk space is
// checked before any byte is fetched.
//
// Two Fetch calls for the same blob share one download: in this process
// through a table of downloads in flight (a caller that cancels leaves; the
// download stops only when no caller is left), across processes (and nodes
// sharing the cache over NFSv4) through a whole-file fcntl lock on the
// .incomplete file. Thread-safe; every method blocks, so call
// it from a blocking pool, never from Asio I/O threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "models/hf_store.h"
#include "models/transfer_policy.h"

namespace zest::models {

class FollowingHasher;

struct DownloadOptions {
  int connections = 4;                     // parallel ranges for large files
  uint64_t min_range_bytes = 16ull << 20;  // no range is smaller (small files: one)
  int max_attempts = 8;                    // consecutive failures without progress
  BackoffPolicy backoff;
  std::chrono::seconds max_retry_after{300};  // a longer Retry-After is capped
  int stall_timeout_s = 30;                   // no bytes this long: reconnect
  // Called with the size of every piece received from the network (from
  // download threads; must be thread-safe and quick): the bytes-downloaded
  // metric.
  std::function<void(uint64_t)> on_received;
};

struct BlobRequest {
  std::string repo;    // validated repo id
  std::string commit;  // snapshot to link the file into
  std::string path;    // file path in the repo (for the link and messages)
  std::string sha256;
  uint64_t size = 0;
  std::string url;                   // where to GET it (may redirect)
  std::vector<std::string> headers;  // e.g. Authorization
};

// (bytes of this file on disk, its size); called every ~100 ms while waiting.
using ProgressFn = std::function<void(uint64_t completed, uint64_t total)>;

class Downloader {
 public:
  Downloader(const HfStore& store, DownloadOptions options);
  // Stops downloads still running (their partial files stay, resumable).
  ~Downloader();

  // Makes snapshots/<commit>/<path> link to a verified blobs/<sha256>,
  // downloading it unless it is already there. kCancelled when `cancel`
  // became true (the download goes on if other callers still want it).
  Status Fetch(const BlobRequest& request, const ProgressFn& progress,
               const std::atomic<bool>* cancel);

  // Bytes `request` still needs on disk (0 when the blob is present).
  uint64_t BytesNeeded(const BlobRequest& request) const;
  // kTooLarge naming needed and available bytes when `dir`'s filesystem
  // cannot hold `needed` more bytes.
  Status CheckFreeSpace(const std::filesystem::path& dir, uint64_t needed) const;

  const DownloadOptions& options() const { return options_; }

 private:
  struct InFlight;
  struct Worker;

  std::shared_ptr<InFlight> Join(const BlobRequest& request, bool* owner);
  void Leave(InFlight& entry);
  void RunDownload(const std::shared_ptr<InFlight>& entry, BlobRequest request);
  Status Download(InFlight& entry, const BlobRequest& request);
  Status VerifyAndPublish(int fd, const BlobRequest& request, FollowingHasher& hasher);
  Status WaitForLock(int fd, const InFlight& entry) const;
  void ReapWorkers();

  const HfStore& store_;
  const DownloadOptions options_;
  Mutex mu_;
  std::map<std::string, std::shared_ptr<InFlight>> in_flight_ GUARDED_BY(mu_);  // by blob path
  std::list<std::unique_ptr<Worker>> workers_ GUARDED_BY(mu_);
  // HfStore::Publish links through a temporary name derived from the pid,
  // so two threads publishing the same path must take turns.
  Mutex publish_mu_;
};

}  // namespace zest::models
