#include "models/hf_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "config/secure_file.h"
#include "core/private_dirs.h"
#include "models/store_naming.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kRepoPrefix = "models--";
constexpr size_t kMaxRepoPartLength = 96;  // the Hub's own limit for names
constexpr size_t kMaxRepoPathLength = 1024;

bool IsHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool ValidRepoPart(std::string_view part) {
  if (part.empty() || part.size() > kMaxRepoPartLength || part == "." || part == "..") return false;
  // "--" separates org and name in the cache's directory names, and the Hub
  // forbids it in names, so rejecting it keeps that mapping reversible.
  if (part.find("--") != std::string_view::npos) return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// "models--org--name" → "org/name"; empty for anything else (datasets,
// spaces, .locks, foreign files).
std::string RepoFromDirName(const std::string& dir) {
  if (!dir.starts_with(kRepoPrefix)) return {};
  std::string rest = dir.substr(kRepoPrefix.size());
  size_t sep = rest.find("--");
  if (sep == std::string::npos) return {};
  std::string repo = rest.substr(0, sep) + "/" + rest.substr(sep + 2);
  return HfStore::ValidRepoId(repo) ? repo : std::string();
}

// True when `path` is `dir` or below it (both canonical).
bool IsWithin(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

// The blob a snapshot symlink names, judged from the link text alone (never
// following it), so a link that leaves the repo protects nothing.
std::optional<std::string> LinkedBlob(const fs::path& link, const fs::path& blobs_dir) {
  std::error_code ec;
  fs::path target = fs::read_symlink(link, ec);
  if (ec) return std::nullopt;
  fs::path resolved = target.is_absolute() ? target : (link.parent_path() / target);
  resolved = resolved.lexically_normal();
  if (resolved.parent_path() != blobs_dir.lexically_normal()) return std::nullopt;
  return resolved.filename().string();
}

// Removes empty directories from `dir` up to (excluding) `stop`.
void PruneEmptyDirs(fs::path dir, const fs::path& stop) {
  std::error_code ec;
  while (dir != stop && IsWithin(dir, stop) && fs::is_empty(dir, ec) && !ec) {
    fs::remove(dir, ec);
    dir = dir.parent_path();
  }
}

std::string SymlinkTarget(std::string_view path, std::string_view sha256) {
  std::string target = "../../";
  for (char c : path) {
    if (c == '/') target += "../";
  }
  return target + "blobs/" + std::string(sha256);
}

}  // namespace

HfStore::HfStore(fs::path root) : root_(std::move(root)) {}

bool HfStore::ValidRepoId(std::string_view repo) {
  size_t slash = repo.find('/');
  if (slash == std::string_view::npos) return false;
  return ValidRepoPart(repo.substr(0, slash)) && ValidRepoPart(repo.substr(slash + 1));
}

bool HfStore::ValidRepoPath(std::string_view path) {
  if (path.empty() || path.size() > kMaxRepoPathLength || path.front() == '/') return false;
  for (char c : path) {
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

bool HfStore::ValidSha256(std::string_view sha) { return sha.size() == 64 && IsHex(sha); }

bool HfStore::ValidCommit(std::string_view commit) {
  return (commit.size() == 40 || commit.size() == 64) && IsHex(commit);
}

fs::path HfStore::RepoDir(std::string_view repo) const {
  std::string dir(kRepoPrefix);
  for (char c : repo) {
    if (c == '/') {
      dir += "--";
    } else {
      dir += c;
    }
  }
  return root_ / dir;
}

fs::path HfStore::BlobPath(std::string_view repo, std::string_view sha256) const {
  return RepoDir(repo) / "blobs" / std::string(sha256);
}

fs::path HfStore::IncompletePath(std::string_view repo, std::string_view sha256) const {
  return RepoDir(repo) / "blobs" / (std::string(sha256) + ".incomplete");
}

std::vector<StoreFile> HfStore::ListRepoModelFiles(std::string_view repo) const {
  std::vector<StoreFile> out = ListRepoFiles(repo, ".gguf");
  for (StoreFile& f : ListRepoFiles(repo, ".bin")) {
    if (IsSpeechModelFile(f.path)) out.push_back(std::move(f));
  }
  return out;
}

std::vector<StoreFile> HfStore::ListModelFiles() const {
  std::vector<StoreFile> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(root_, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    std::string repo = RepoFromDirName(it->path().filename().string());
    if (repo.empty()) continue;
    std::vector<StoreFile> files = ListRepoModelFiles(repo);
    out.insert(out.end(), files.begin(), files.end());
  }
  std::sort(out.begin(), out.end(), [](const StoreFile& a, const StoreFile& b) {
    return std::tie(a.repo, a.commit, a.path) < std::tie(b.repo, b.commit, b.path);
  });
  return out;
}

std::vector<StoreFile> HfStore::ListRepoFiles(std::string_view repo,
                                              std::string_view suffix) const {
  std::vector<StoreFile> out;
  if (!ValidRepoId(repo)) return out;
  std::error_code ec;
  fs::path repo_dir = fs::canonical(RepoDir(repo), ec);
  if (ec) return out;
  for (auto snap = fs::directory_iterator(repo_dir / "snapshots", ec);
       !ec && snap != fs::directory_iterator(); snap.increment(ec)) {
    std::string commit = snap->path().filename().string();
    std::error_code dir_ec;
    if (!ValidCommit(commit) || !snap->is_directory(dir_ec)) continue;
    std::error_code walk_ec;
    // The walk does not descend into directory symlinks; file symlinks are
    // resolved and must land inside the repo directory.
    for (auto f = fs::recursive_directory_iterator(snap->path(), walk_ec);
         !walk_ec && f != fs::recursive_directory_iterator(); f.increment(walk_ec)) {
      std::string rel = f->path().lexically_relative(snap->path()).generic_string();
      if (!rel.ends_with(suffix) || !ValidRepoPath(rel)) continue;
      std::error_code file_ec;
      fs::path real = fs::canonical(f->path(), file_ec);
      if (file_ec || !IsWithin(real, repo_dir) || !fs::is_regular_file(real, file_ec)) continue;
      uint64_t size = fs::file_size(real, file_ec);
      if (file_ec) continue;
      out.push_back({std::string(repo), commit, rel, f->path(), size});
    }
  }
  return out;
}

std::optional<StoreFile> HfStore::FindFile(std::string_view repo, std::string_view path) const {
  if (!ValidRepoPath(path)) return std::nullopt;
  std::optional<std::string> main = ReadRef(repo, "main");
  std::optional<StoreFile> found;
  for (StoreFile& f : ListRepoFiles(repo, path)) {
    if (f.path != path) continue;
    if (!found || (main && f.commit == *main)) found = std::move(f);
  }
  return found;
}

std::optional<std::string> HfStore::ReadRef(std::string_view repo,
                                            std::string_view revision) const {
  if (!ValidRepoId(repo) || !ValidRepoPath(revision)) return std::nullopt;
  std::ifstream in(RepoDir(repo) / "refs" / std::string(revision));
  std::string commit;
  if (!(in >> commit) || !ValidCommit(commit)) return std::nullopt;
  return commit;
}

Status HfStore::PrepareRepo(std::string_view repo) const {
  if (!ValidRepoId(repo)) return InvalidArgument("invalid repo id '" + std::string(repo) + "'");
  fs::path dir = RepoDir(repo);
  for (const char* sub : {"blobs", "snapshots", "refs"})
    ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(dir / sub));
  return Status::Ok();
}

Status HfStore::Publish(std::string_view repo, std::string_view commit, std::string_view path,
                        std::string_view sha256, const fs::path& verified) const {
  if (!ValidCommit(commit)) return InvalidArgument("invalid commit '" + std::string(commit) + "'");
  if (!ValidRepoPath(path)) return InvalidArgument("invalid file path '" + std::string(path) + "'");
  if (!ValidSha256(sha256)) return InvalidArgument("invalid sha256 '" + std::string(sha256) + "'");
  ZEST_RETURN_IF_ERROR(PrepareRepo(repo));
  std::error_code ec;
  fs::path blob = BlobPath(repo, sha256);
  if (fs::is_regular_file(blob, ec)) {
    fs::remove(verified, ec);  // same content already there (another snapshot)
  } else {
    ::chmod(verified.c_str(), 0600);
    if (::rename(verified.c_str(), blob.c_str()) != 0) {
      return IoError("cannot move " + verified.string() + " to " + blob.string() + ": " +
                     std::strerror(errno));
    }
  }
  fs::path link = RepoDir(repo) / "snapshots" / std::string(commit) / std::string(path);
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(link.parent_path()));
  // Link under a temporary name, then rename over any older entry, so a
  // reader never sees the path missing.
  fs::path tmp = link;
  tmp += ".tmp." + std::to_string(::getpid());
  fs::remove(tmp, ec);
  if (::symlink(SymlinkTarget(path, sha256).c_str(), tmp.c_str()) != 0 ||
      ::rename(tmp.c_str(), link.c_str()) != 0) {
    Status st = IoError("cannot link " + link.string() + ": " + std::strerror(errno));
    fs::remove(tmp, ec);
    return st;
  }
  return Status::Ok();
}

Status HfStore::WriteRef(std::string_view repo, std::string_view revision,
                         std::string_view commit) const {
  if (!ValidRepoPath(revision))
    return InvalidArgument("invalid revision '" + std::string(revision) + "'");
  if (!ValidCommit(commit)) return InvalidArgument("invalid commit '" + std::string(commit) + "'");
  ZEST_RETURN_IF_ERROR(PrepareRepo(repo));
  fs::path ref = RepoDir(repo) / "refs" / std::string(revision);
  ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(ref.parent_path()));
  // A unique temporary name (two pulls in one process write the same ref);
  // no newline: the Hub's tools write the bare commit.
  return config::WriteFileAtomically(ref, commit, 0600);
}

Status HfStore::Remove(std::string_view repo, const std::vector<std::string>& paths) const {
  if (!ValidRepoId(repo)) return InvalidArgument("invalid repo id '" + std::string(repo) + "'");
  for (const std::string& p : paths) {
    if (!ValidRepoPath(p)) return InvalidArgument("invalid file path '" + p + "'");
  }
  std::error_code ec;
  fs::path dir = RepoDir(repo);
  if (!fs::is_directory(dir, ec))
    return NotFound("'" + std::string(repo) + "' is not in the store");
  if (paths.empty()) {
    fs::remove_all(dir, ec);  // removes links, never what they point to
    if (ec) return IoError("cannot remove " + dir.string() + ": " + ec.message());
    return Status::Ok();
  }
  fs::path snapshots = dir / "snapshots";
  for (auto snap = fs::directory_iterator(snapshots, ec); !ec && snap != fs::directory_iterator();
       snap.increment(ec)) {
    for (const std::string& p : paths) {
      fs::path entry = snap->path() / p;
      std::error_code rm_ec;
      if (fs::is_directory(fs::symlink_status(entry, rm_ec))) continue;
      if (fs::remove(entry, rm_ec)) PruneEmptyDirs(entry.parent_path(), snapshots);
    }
  }
  return RemoveUnlinkedBlobs(dir);
}

Status HfStore::RemoveUnlinkedBlobs(const fs::path& dir) const {
  std::error_code ec;
  fs::path blobs = dir / "blobs";
  std::set<std::string> linked;
  for (auto f = fs::recursive_directory_iterator(dir / "snapshots", ec);
       !ec && f != fs::recursive_directory_iterator(); f.increment(ec)) {
    std::error_code link_ec;
    if (!f->is_symlink(link_ec)) continue;
    if (auto blob = LinkedBlob(f->path(), blobs)) linked.insert(*blob);
  }
  std::vector<fs::path> unlinked;
  size_t kept = 0;
  for (auto b = fs::directory_iterator(blobs, ec); !ec && b != fs::directory_iterator();
       b.increment(ec)) {
    std::string name = b->path().filename().string();
    // Partial downloads belong to a pull that may still be running.
    if (linked.contains(name) || name.ends_with(".incomplete")) {
      ++kept;
    } else {
      unlinked.push_back(b->path());
    }
  }
  for (const fs::path& p : unlinked) {
    if (!fs::remove(p, ec) && ec)
      return IoError("cannot remove " + p.string() + ": " + ec.message());
  }
  if (kept == 0 && fs::is_empty(dir / "snapshots", ec)) fs::remove_all(dir, ec);
  return Status::Ok();
}

}  // namespace zest::models
