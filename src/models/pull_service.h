// PullService: `zest pull` on the server side. Resolves a spec (catalog
// name, repo[:QUANT], file URL) against the hub, picks the files, checks
// that the disk can hold them, downloads each into the store (shared with
// any concurrent pull of the same blobs), links the snapshot, records the
// revision's commit, and answers the name the model is served under.
// Thread-safe; Pull blocks (run it on a blocking pool).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "models/catalog.h"
#include "models/downloader.h"
#include "models/hf_store.h"
#include "models/hub_client.h"

namespace zest::models {

struct PullProgress {
  std::string status;  // "resolving", "downloading", "verifying"
  std::string file;    // path in the repo
  uint64_t completed = 0;
  uint64_t total = 0;
  int file_index = 0;  // 1-based, of file_count
  int file_count = 0;
};

struct PullResult {
  std::string model;  // served name, e.g. "org/repo:Q4_K_M"
  std::string repo;
  std::string commit;
  std::vector<std::string> files;  // paths in the repo
};

class PullService {
 public:
  // All references must outlive the service. `catalog` may be null.
  PullService(const HfStore& store, HubConfig hub, DownloadOptions options, const Catalog* catalog);

  // Downloads `spec` into the store. `progress` is called from the pulling
  // thread, often; throttle before sending it anywhere. kCancelled when
  // `cancel` became true (partial downloads stay and resume next time).
  Result<PullResult> Pull(std::string_view spec,
                          const std::function<void(const PullProgress&)>& progress,
                          const std::atomic<bool>* cancel);

 private:
  Status CheckSpace(const std::vector<BlobRequest>& blobs) const;
  std::string ServedName(const std::string& repo, const std::string& first_file) const;

  const HfStore& store_;
  HubClient hub_;
  Downloader downloader_;
  const Catalog* catalog_;
};

}  // namespace zest::models
