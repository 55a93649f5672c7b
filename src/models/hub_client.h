// HubClient: the Hugging Face hub's HTTP API, as far as pulling needs it:
// which commit a revision points to, the files of that commit with sizes and
// LFS sha256s, and where to download each. Endpoint and token from config's
// hub.endpoint (HF_ENDPOINT) and hub.token (HF_TOKEN; sent as a Bearer
// header; libcurl keeps it off redirects to other hosts). Blocking; callable
// from any thread but the Asio I/O threads. Everything the hub returns is
// validated (repo paths, hashes, commit ids) before anyone uses it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "models/pull_spec.h"

namespace zest::models {

struct HubConfig {
  std::string endpoint = "https://huggingface.co";  // no trailing slash
  std::string token;                                // empty: anonymous
};

// Files of one commit of a repo.
struct RepoTree {
  std::string commit;
  std::vector<HubFile> files;
};

class HubClient {
 public:
  explicit HubClient(HubConfig config) : config_(std::move(config)) {}

  // The commit `revision` points to, then the files of that commit (all
  // pages). kNotFound for an unknown repo or revision, kUnavailable when the
  // hub cannot be reached or refuses (401/403 explain HF_TOKEN and gating).
  // When the revision API fails (mirrors and proxies often lack it), the
  // files are listed at `revision` and the commit is the X-Repo-Commit
  // header of a file's resolve answer, as huggingface_hub does.
  Result<RepoTree> ListFiles(std::string_view repo, std::string_view revision) const;

  // {endpoint}/{repo}/resolve/{revision}/{path}
  std::string ResolveUrl(std::string_view repo, std::string_view revision,
                         std::string_view path) const;
  // Request headers for the hub: Authorization when a token is set.
  std::vector<std::string> Headers() const;

  // The JSON array the tree API returns → files (directories skipped).
  // kInvalidArgument when an entry has an unsafe path or a malformed hash:
  // a hub that lists such names is not trusted with the store.
  static Result<std::vector<HubFile>> ParseTree(std::string_view json);
  // The error for a hub answer with HTTP `status` while fetching `what`.
  static Status HttpError(long status, std::string_view repo, std::string_view what,
                          std::string_view body);

 private:
  // The files at `tree_ref` (a commit or a revision name), all pages.
  Result<std::vector<HubFile>> ListTree(std::string_view repo, const std::string& tree_ref) const;
  // X-Repo-Commit of the resolve answer for `path` at `revision` (the
  // redirect itself, not followed; one byte asked for when it serves).
  Result<std::string> CommitFromResolve(std::string_view repo, std::string_view revision,
                                        std::string_view path) const;
  Result<std::string> GetText(const std::string& url, std::string_view repo, std::string_view what,
                              std::string* next_page) const;

  HubConfig config_;
};

}  // namespace zest::models
