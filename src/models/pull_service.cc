#include "models/pull_service.h"

#include <spdlog/spdlog.h>

#include "core/private_dirs.h"
#include "models/pull_spec.h"
#include "models/store_naming.h"

namespace zest::models {

PullService::PullService(const HfStore& store, HubConfig hub, DownloadOptions options,
                         const Catalog* catalog)
    : store_(store),
      hub_(std::move(hub)),
      downloader_(store, std::move(options)),
      catalog_(catalog) {}

Status PullService::CheckSpace(const std::vector<BlobRequest>& blobs) const {
  uint64_t needed = 0;
  for (const BlobRequest& b : blobs) needed += downloader_.BytesNeeded(b);
  if (needed == 0) return Status::Ok();
  // On a fresh machine the cache does not exist yet: make it (0700), as
  // huggingface_hub does, before asking how much room it has.
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(store_.root()));
  return downloader_.CheckFreeSpace(store_.root(), needed);
}

// The registry's naming rule over what the repo now holds in the store, so
// the answer is exactly the name `zest list` shows.
std::string PullService::ServedName(const std::string& repo, const std::string& first_file) const {
  std::vector<StoreFile> files = store_.ListRepoModelFiles(repo);
  for (const StoreFile& f : files) {
    if (f.path == first_file) {
      std::string name = StoreModelName(f, files);
      if (!name.empty()) return name;
    }
  }
  std::string label = ModelLabel(first_file);
  return label.empty() ? repo : repo + ":" + label;
}

Result<PullResult> PullService::Pull(std::string_view spec_text,
                                     const std::function<void(const PullProgress&)>& progress,
                                     const std::atomic<bool>* cancel) {
  ZEST_ASSIGN_OR_RETURN(PullSpec spec, ParsePullSpec(spec_text, catalog_));
  PullProgress p;
  p.status = "resolving";
  if (progress) progress(p);
  ZEST_ASSIGN_OR_RETURN(RepoTree tree, hub_.ListFiles(spec.repo, spec.revision));
  ZEST_ASSIGN_OR_RETURN(FileSelection selection, SelectFiles(spec, tree.files));
  std::vector<HubFile> files = selection.model_files;
  files.insert(files.end(), selection.extra_files.begin(), selection.extra_files.end());
  std::vector<BlobRequest> blobs;
  for (const HubFile& f : files) {
    blobs.push_back({spec.repo, tree.commit, f.path, f.sha256, f.size,
                     hub_.ResolveUrl(spec.repo, tree.commit, f.path), hub_.Headers()});
  }
  ZEST_RETURN_IF_ERROR(CheckSpace(blobs));
  PullResult result{"", spec.repo, tree.commit, {}};
  p.status = "downloading";
  p.file_count = static_cast<int>(blobs.size());
  for (const BlobRequest& blob : blobs) {
    ++p.file_index;
    p.file = blob.path;
    auto on_bytes = [&](uint64_t completed, uint64_t total) {
      p.completed = completed;
      p.total = total;
      if (progress) progress(p);
    };
    ZEST_RETURN_IF_ERROR(downloader_.Fetch(blob, on_bytes, cancel));
    result.files.push_back(blob.path);
  }
  ZEST_RETURN_IF_ERROR(store_.WriteRef(spec.repo, spec.revision, tree.commit));
  result.model = ServedName(spec.repo, selection.model_files.front().path);
  spdlog::info("pulled {} ({}@{})", result.model, spec.repo, tree.commit.substr(0, 12));
  return result;
}

}  // namespace zest::models
