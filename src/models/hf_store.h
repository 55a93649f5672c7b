// HfStore: zest's model store, which is the standard Hugging Face hub cache,
// so files other tools (huggingface-cli, llama.cpp -hf, ...) downloaded are
// found without copying, and the other way round. Layout under the root:
//
//   models--{org}--{name}/
//     blobs/{sha256}                 the file contents (0600 when zest made them)
//     blobs/{sha256}.incomplete      a download in progress (resumable)
//     snapshots/{commit}/{path}  →   ../../blobs/{sha256} (relative symlink)
//     refs/{revision}                the commit a revision (e.g. "main") points to
//
// Root: config's models.hf_hub_cache ($HF_HUB_CACHE, else $HF_HOME/hub,
// else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub).
// Names from the network are validated before they touch the filesystem.
// Thread-safe for concurrent readers; publishing is atomic (rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::models {

// One file of a repo snapshot present in the store.
struct StoreFile {
  std::string repo;            // "org/name"
  std::string commit;          // snapshot directory name
  std::string path;            // path inside the repo, "Q4_K_M/model-00001-of-00002.gguf"
  std::filesystem::path file;  // snapshots/{commit}/{path} (usually a symlink)
  uint64_t size = 0;           // of the resolved file
};

class HfStore {
 public:
  explicit HfStore(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }

  // "org/name": both parts [A-Za-z0-9._-]+, not "." or "..".
  static bool ValidRepoId(std::string_view repo);
  // A relative path inside a repo: no empty, "." or ".." segments, no
  // leading '/', no backslashes or NULs.
  static bool ValidRepoPath(std::string_view path);
  // A lowercase hex sha256 (64 chars) / a commit id (hex, 40 or 64 chars).
  static bool ValidSha256(std::string_view sha);
  static bool ValidCommit(std::string_view commit);

  // root/models--org--name
  std::filesystem::path RepoDir(std::string_view repo) const;
  std::filesystem::path BlobPath(std::string_view repo, std::string_view sha256) const;
  std::filesystem::path IncompletePath(std::string_view repo, std::string_view sha256) const;

  // Every model file (IsModelFile in store_naming.h: *.gguf, whisper.cpp's
  // ggml-*.bin) in every snapshot of every model repo, following only
  // symlinks that stay inside the repo directory.
  std::vector<StoreFile> ListModelFiles() const;
  // The model files of one repo (every snapshot), under the same rules.
  std::vector<StoreFile> ListRepoModelFiles(std::string_view repo) const;
  // Files of one repo whose path ends with `suffix` (every snapshot), under
  // the same rules. Empty for an invalid or absent repo.
  std::vector<StoreFile> ListRepoFiles(std::string_view repo, std::string_view suffix) const;
  // `path` in the snapshot refs/main points to, else in any snapshot.
  std::optional<StoreFile> FindFile(std::string_view repo, std::string_view path) const;
  // The commit `revision` points to (refs/{revision}), if recorded.
  std::optional<std::string> ReadRef(std::string_view repo, std::string_view revision) const;

  // Creates blobs/, snapshots/, refs/ (0700) for `repo`.
  Status PrepareRepo(std::string_view repo) const;
  // Moves a verified download into blobs/{sha256} (atomic rename; a blob
  // that already exists is kept and `verified` removed), then links
  // snapshots/{commit}/{path} to it.
  Status Publish(std::string_view repo, std::string_view commit, std::string_view path,
                 std::string_view sha256, const std::filesystem::path& verified) const;
  Status WriteRef(std::string_view repo, std::string_view revision, std::string_view commit) const;

  // Deletes snapshot entries of `repo` (all, or only those whose path is in
  // `paths`), then the blobs no remaining snapshot links to; removes the repo
  // directory when nothing is left. kNotFound if the repo is not in the store.
  Status Remove(std::string_view repo, const std::vector<std::string>& paths = {}) const;

 private:
  // Deletes blobs no snapshot symlink names (keeping *.incomplete ones) and
  // the repo directory once no snapshot and no blob is left.
  Status RemoveUnlinkedBlobs(const std::filesystem::path& repo_dir) const;

  std::filesystem::path root_;
};

}  // namespace zest::models
