#include "api/responses/response_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "config/secure_file.h"
#include "relay/json_text.h"

namespace zest::api::responses {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::size_t kPruneEvery = 32;

bool IsId(const std::string& id) {
  return !id.empty() && id.size() <= 128 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A key's directory: key-NAME (key names are [A-Za-z0-9._-]{1,64}; the
// prefix keeps "." and ".." plain names), local/ without keys.
std::optional<std::string> OwnerDirectory(const std::string& owner) {
  if (owner.empty()) return "local";
  const bool name =
      owner.size() <= 64 && std::all_of(owner.begin(), owner.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
      });
  if (!name) return std::nullopt;
  return "key-" + owner;
}

struct File {
  fs::path path;
  fs::file_time_type written;
  uint64_t size = 0;
};

// The .json files of `dir`, newest first.
std::vector<File> FilesNewestFirst(const fs::path& dir) {
  std::vector<File> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::error_code stat_ec;
    const auto written = entry.last_write_time(stat_ec);
    const auto size = entry.file_size(stat_ec);
    if (!stat_ec) files.push_back({entry.path(), written, size});
  }
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.written > b.written; });
  return files;
}

// Responses stored before each key had a directory (one flat directory)
// move into their key's.
void MoveFlatFiles(const fs::path& dir) {
  for (const File& file : FilesNewestFirst(dir)) {
    std::ifstream in(file.path, std::ios::binary);
    const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
    std::optional<std::string> owner = doc.is_object() && doc.value("owner", json()).is_string()
                                           ? OwnerDirectory(doc["owner"].get<std::string>())
                                           : std::nullopt;
    std::error_code ec;
    if (!owner) {
      fs::remove(file.path, ec);
      continue;
    }
    fs::create_directory(dir / *owner, ec);
    fs::permissions(dir / *owner, fs::perms::owner_all, fs::perm_options::replace, ec);
    fs::rename(file.path, dir / *owner / file.path.filename(), ec);
  }
}

}  // namespace

ResponseStore::ResponseStore(fs::path dir, Limits limits) : dir_(std::move(dir)), limits_(limits) {
  MoveFlatFiles(dir_);
}

Result<fs::path> ResponseStore::PathFor(const std::string& id, const std::string& owner) const {
  std::optional<std::string> directory = OwnerDirectory(owner);
  if (!IsId(id) || !directory) return NotFound("response '" + id + "' not found");
  return dir_ / *directory / (id + ".json");
}

ResponseStore::~ResponseStore() { writer_.join(); }

Status ResponseStore::Put(const std::string& id, const StoredResponse& record) {
  ZEST_RETURN_IF_ERROR(PathFor(id, record.owner).status());
  uint64_t put = 0;
  {
    MutexLock lock(mu_);
    put = ++puts_;
    pending_[id] = Pending{record, put};
  }
  boost::asio::post(writer_, [this, id, put] { Write(id, put); });
  return Status::Ok();
}

void ResponseStore::Write(const std::string& id, uint64_t put) {
  fs::path path;
  std::string text;
  {
    MutexLock lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.put != put) return;  // deleted, or put again
    const StoredResponse& r = it->second.record;
    path = *PathFor(id, r.owner);  // Put checked the id and the owner
    text = relay::JsonText(json{{"owner", r.owner},
                                {"response", r.response},
                                {"input_items", r.input_items},
                                {"messages", r.messages},
                                {"chain", r.chain}});
  }
  std::error_code ec;
  for (const fs::path& dir : {dir_, path.parent_path()}) {
    fs::create_directories(dir, ec);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  const Status written = config::WriteFileAtomically(path, text, 0600);
  if (!written.ok()) spdlog::warn("responses: could not store {}: {}", id, written.message());
  MutexLock lock(mu_);
  auto it = pending_.find(id);
  if (it == pending_.end()) {
    fs::remove(path, ec);  // deleted while it was being written
  } else if (it->second.put == put) {
    pending_.erase(it);  // on disk now (or lost, and said so)
  }
  // Pruning lists the directories: every few puts, after a few large ones
  // (a key's share is never much exceeded), at once for small limits.
  bytes_since_prune_ += text.size();
  if (put % kPruneEvery == 1 ||
      bytes_since_prune_ > std::min(limits_.max_bytes, limits_.max_bytes_per_key) / 8 ||
      limits_.max_count <= kPruneEvery || limits_.max_count_per_key <= kPruneEvery) {
    Prune();
  }
}

void ResponseStore::Flush() {
  std::promise<void> done;
  boost::asio::post(writer_, [&done] { done.set_value(); });
  done.get_future().wait();
}

Result<StoredResponse> ResponseStore::Get(const std::string& id, const std::string& owner) const {
  ZEST_ASSIGN_OR_RETURN(fs::path path, PathFor(id, owner));
  const Status missing = NotFound("response '" + id + "' not found");
  std::string text;
  {
    MutexLock lock(mu_);
    if (auto it = pending_.find(id); it != pending_.end()) {
      if (it->second.record.owner != owner) return missing;
      return it->second.record;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return missing;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    text = bytes.str();
  }
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("owner", json()) != owner) return missing;
  StoredResponse record;
  record.owner = owner;
  record.response = doc.value("response", json::object());
  record.input_items = doc.value("input_items", json::array());
  record.messages = doc.value("messages", json::array());
  record.chain = doc.value("chain", "");
  return record;
}

Status ResponseStore::Delete(const std::string& id, const std::string& owner) {
  ZEST_RETURN_IF_ERROR(Get(id, owner).status());
  ZEST_ASSIGN_OR_RETURN(fs::path path, PathFor(id, owner));
  MutexLock lock(mu_);
  pending_.erase(id);  // a write in flight removes its own file (Write)
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) return Internal("cannot delete " + path.string() + ": " + ec.message());
  return Status::Ok();
}

void ResponseStore::Prune() {
  bytes_since_prune_ = 0;
  struct Key {
    std::vector<File> files;  // newest first
    uint64_t bytes = 0;
  };
  std::vector<Key> keys;
  std::vector<fs::path> drop;
  const auto oldest = fs::file_time_type::clock::now() - limits_.max_age;
  std::size_t count = 0;
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (!entry.is_directory(ec)) continue;
    Key key;
    for (File& file : FilesNewestFirst(entry.path())) {
      const bool keep = file.written >= oldest && key.files.size() < limits_.max_count_per_key &&
                        key.bytes + file.size <= limits_.max_bytes_per_key;
      if (!keep) {
        drop.push_back(file.path);
        continue;
      }
      key.bytes += file.size;
      key.files.push_back(std::move(file));
    }
    count += key.files.size();
    bytes += key.bytes;
    keys.push_back(std::move(key));
  }
  // Over the limits in all: the key holding the most gives up its oldest.
  while (count > limits_.max_count || bytes > limits_.max_bytes) {
    Key& most = *std::max_element(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
      return std::pair(a.bytes, a.files.size()) < std::pair(b.bytes, b.files.size());
    });
    File& last = most.files.back();
    drop.push_back(last.path);
    most.bytes -= last.size;
    bytes -= last.size;
    --count;
    most.files.pop_back();
  }
  for (const fs::path& path : drop) {
    fs::remove(path, ec);
    spdlog::debug("responses: dropped {} (store limits)", path.filename().string());
  }
}

}  // namespace zest::api::responses
