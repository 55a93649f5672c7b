#include "models/hub_client.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "models/hf_store.h"
#include "models/http_fetch.h"

namespace zest::models {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxApiBytes = 64ull * 1024 * 1024;
constexpr int kMaxPages = 1000;

std::string EscapePath(std::string_view path) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = path.find('/', start);
    out += EscapePathSegment(path.substr(start, slash == path.npos ? path.npos : slash - start));
    if (slash == path.npos) return out;
    out += '/';
    start = slash + 1;
  }
}

// `Link: <https://...?cursor=x>; rel="next"` → the URL, or "".
std::string NextPageUrl(const std::map<std::string, std::string>& headers) {
  auto it = headers.find("link");
  if (it == headers.end()) return "";
  const std::string& link = it->second;
  std::size_t rel = link.find("rel=\"next\"");
  if (rel == std::string::npos) return "";
  std::size_t open = link.rfind('<', rel);
  std::size_t close = link.find('>', open);
  if (open == std::string::npos || close == std::string::npos || close > rel) return "";
  return link.substr(open + 1, close - open - 1);
}

// "https://host:port" of an absolute URL, lower-cased; "" when it has none.
std::string Origin(std::string_view url) {
  std::size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::size_t end = url.find_first_of("/?#", scheme + 3);
  std::string origin(url.substr(0, end));
  for (char& c : origin) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return origin;
}

Result<HubFile> ParseEntry(const json& e) {
  if (!e.is_object() || !e.contains("path") || !e["path"].is_string()) {
    return InvalidArgument("the hub's file list has an entry without a path");
  }
  HubFile f;
  f.path = e["path"].get<std::string>();
  if (!HfStore::ValidRepoPath(f.path)) {
    return InvalidArgument("the hub listed an unsafe file name '" + f.path + "'; refusing it");
  }
  f.size = e.value("size", uint64_t{0});
  if (e.contains("lfs") && e["lfs"].is_object()) {
    const json& lfs = e["lfs"];
    f.sha256 = lfs.value("oid", std::string());
    if (f.sha256.starts_with("sha256:")) f.sha256.erase(0, 7);
    if (!HfStore::ValidSha256(f.sha256)) {
      return InvalidArgument("the hub listed a malformed sha256 for '" + f.path + "'");
    }
    f.size = lfs.value("size", f.size);
  }
  return f;
}

}  // namespace

std::string HubClient::ResolveUrl(std::string_view repo, std::string_view revision,
                                  std::string_view path) const {
  return config_.endpoint + "/" + std::string(repo) + "/resolve/" + EscapePathSegment(revision) +
         "/" + EscapePath(path);
}

std::vector<std::string> HubClient::Headers() const {
  std::vector<std::string> headers;
  if (!config_.token.empty()) headers.push_back("Authorization: Bearer " + config_.token);
  return headers;
}

Status HubClient::HttpError(long status, std::string_view repo, std::string_view what,
                            std::string_view body) {
  std::string where = std::string(what) + " of " + std::string(repo);
  if (status == 401 || status == 403) {
    return Unavailable("the hub refused access to " + std::string(repo) + " (HTTP " +
                       std::to_string(status) +
                       "): the model may be gated or private; accept its terms on "
                       "huggingface.co and set HF_TOKEN to an access token with read permission");
  }
  if (status == 404) return NotFound("the hub has no " + where);
  std::string detail(body.substr(0, 200));
  return Unavailable("the hub answered HTTP " + std::to_string(status) + " for " + where +
                     (detail.empty() ? "" : ": " + detail));
}

Result<std::string> HubClient::GetText(const std::string& url, std::string_view repo,
                                       std::string_view what, std::string* next_page) const {
  std::string body;
  HttpGetOptions options;
  options.headers = Headers();
  options.headers.push_back("Accept: application/json");
  options.sink = [&body](long, std::string_view bytes) {
    if (body.size() + bytes.size() > kMaxApiBytes) return false;
    body.append(bytes);
    return true;
  };
  HttpGetResult r = HttpGet(url, options);
  if (r.stopped_by_sink) return Unavailable("the hub's answer for " + url + " is too large");
  if (!r.transport_ok) {
    return Unavailable("cannot reach the hub at " + config_.endpoint + " (" + r.transport_error +
                       "); check the network, HF_ENDPOINT and proxy settings");
  }
  if (r.status < 200 || r.status >= 300) return HttpError(r.status, repo, what, r.error_body);
  if (next_page) {
    *next_page = NextPageUrl(r.headers);
    // The token goes with every page: only to the endpoint's own host.
    if (!next_page->empty() && Origin(*next_page) != Origin(config_.endpoint)) {
      return Unavailable("the hub's file list of " + std::string(repo) +
                         " continues on another host (" + Origin(*next_page) +
                         "); zest follows pages only on " + Origin(config_.endpoint));
    }
  }
  return body;
}

Result<std::vector<HubFile>> HubClient::ParseTree(std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_array()) return InvalidArgument("the hub's file list is not a JSON array");
  std::vector<HubFile> files;
  for (const json& e : doc) {
    if (e.is_object() && e.value("type", std::string()) == "directory") continue;
    ZEST_ASSIGN_OR_RETURN(HubFile f, ParseEntry(e));
    files.push_back(std::move(f));
  }
  return files;
}

Result<RepoTree> HubClient::ListFiles(std::string_view repo, std::string_view revision) const {
  if (!HfStore::ValidRepoId(repo))
    return InvalidArgument("invalid repo id '" + std::string(repo) + "'");
  RepoTree tree;
  std::string base = config_.endpoint + "/api/models/" + std::string(repo);
  Result<std::string> rev_text = GetText(base + "/revision/" + EscapePathSegment(revision), repo,
                                         "revision " + std::string(revision), nullptr);
  if (rev_text.ok()) {
    json rev = json::parse(*rev_text, nullptr, false);
    tree.commit = rev.is_object() ? rev.value("sha", std::string()) : "";
  }
  if (HfStore::ValidCommit(tree.commit)) {
    ZEST_ASSIGN_OR_RETURN(tree.files, ListTree(repo, tree.commit));
    return tree;
  }
  // No revision API (or no valid sha from it): list the revision's files,
  // then ask the hub which commit it resolves files from.
  Status revision_error = rev_text.ok()
                              ? Unavailable("the hub gave no valid commit id for " +
                                            std::string(repo) + "@" + std::string(revision))
                              : rev_text.status();
  ZEST_ASSIGN_OR_RETURN(tree.files, ListTree(repo, EscapePathSegment(revision)));
  if (tree.files.empty()) return revision_error;
  Result<std::string> commit = CommitFromResolve(repo, revision, tree.files.front().path);
  if (!commit.ok()) return revision_error;
  tree.commit = *commit;
  return tree;
}

Result<std::vector<HubFile>> HubClient::ListTree(std::string_view repo,
                                                 const std::string& tree_ref) const {
  std::vector<HubFile> all;
  std::string url = config_.endpoint + "/api/models/" + std::string(repo) + "/tree/" + tree_ref +
                    "?recursive=true";
  for (int page = 0; !url.empty() && page < kMaxPages; ++page) {
    std::string next;
    ZEST_ASSIGN_OR_RETURN(std::string text, GetText(url, repo, "file list", &next));
    ZEST_ASSIGN_OR_RETURN(std::vector<HubFile> files, ParseTree(text));
    all.insert(all.end(), files.begin(), files.end());
    url = next;
  }
  return all;
}

Result<std::string> HubClient::CommitFromResolve(std::string_view repo, std::string_view revision,
                                                 std::string_view path) const {
  HttpGetOptions options;
  options.headers = Headers();
  options.follow_redirects = false;
  options.range_from = 0;
  options.range_to = 0;
  options.sink = [](long, std::string_view) { return true; };
  HttpGetResult r = HttpGet(ResolveUrl(repo, revision, path), options);
  if (!r.transport_ok) return Unavailable("cannot reach the hub: " + r.transport_error);
  if (r.status >= 400) return HttpError(r.status, repo, "file " + std::string(path), r.error_body);
  auto it = r.headers.find("x-repo-commit");
  if (it == r.headers.end() || !HfStore::ValidCommit(it->second)) {
    return Unavailable("the hub's answer for " + std::string(path) + " carries no X-Repo-Commit");
  }
  return it->second;
}

}  // namespace zest::models
