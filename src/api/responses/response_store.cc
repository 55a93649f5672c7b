#include "api/responses/response_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <fstream>
#include <future>
#include <sstream>
#include <vector>

#include "api/json_text.h"
#include "config/secure_file.h"

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

}  // namespace

ResponseStore::ResponseStore(fs::path dir, Limits limits) : dir_(std::move(dir)), limits_(limits) {}

Result<fs::path> ResponseStore::PathFor(const std::string& id) const {
  if (!IsId(id)) return NotFound("response '" + id + "' not found");
  return dir_ / (id + ".json");
}

ResponseStore::~ResponseStore() { writer_.join(); }

Status ResponseStore::Put(const std::string& id, const StoredResponse& record) {
  ZEST_RETURN_IF_ERROR(PathFor(id).status());
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
  const fs::path path = *PathFor(id);  // Put checked the id
  std::string text;
  {
    MutexLock lock(mu_);
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.put != put) return;  // deleted, or put again
    const StoredResponse& r = it->second.record;
    text = JsonText(json{{"owner", r.owner},
                         {"response", r.response},
                         {"input_items", r.input_items},
                         {"messages", r.messages}});
  }
  std::error_code ec;
  fs::create_directories(dir_, ec);
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
  const Status written = config::WriteFileAtomically(path, text, 0600);
  if (!written.ok()) spdlog::warn("responses: could not store {}: {}", id, written.message());
  MutexLock lock(mu_);
  auto it = pending_.find(id);
  if (it == pending_.end()) {
    fs::remove(path, ec);  // deleted while it was being written
  } else if (it->second.put == put) {
    pending_.erase(it);  // on disk now (or lost, and said so)
  }
  // Pruning lists the directory: every few puts (at once for small limits).
  if (put % kPruneEvery == 1 || limits_.max_count <= kPruneEvery) Prune();
}

void ResponseStore::Flush() {
  std::promise<void> done;
  boost::asio::post(writer_, [&done] { done.set_value(); });
  done.get_future().wait();
}

Result<StoredResponse> ResponseStore::Get(const std::string& id, const std::string& owner) const {
  ZEST_ASSIGN_OR_RETURN(fs::path path, PathFor(id));
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
  return record;
}

Status ResponseStore::Delete(const std::string& id, const std::string& owner) {
  ZEST_RETURN_IF_ERROR(Get(id, owner).status());
  ZEST_ASSIGN_OR_RETURN(fs::path path, PathFor(id));
  MutexLock lock(mu_);
  pending_.erase(id);  // a write in flight removes its own file (Write)
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) return Internal("cannot delete " + path.string() + ": " + ec.message());
  return Status::Ok();
}

void ResponseStore::Prune() {
  struct File {
    fs::path path;
    fs::file_time_type written;
    uint64_t size;
  };
  std::vector<File> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::error_code stat_ec;
    const auto written = entry.last_write_time(stat_ec);
    const auto size = entry.file_size(stat_ec);
    if (!stat_ec) files.push_back({entry.path(), written, size});
  }
  std::sort(files.begin(), files.end(),
            [](const File& a, const File& b) { return a.written > b.written; });  // newest first
  const auto oldest = fs::file_time_type::clock::now() - limits_.max_age;
  uint64_t bytes = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    bytes += files[i].size;
    if (i < limits_.max_count && bytes <= limits_.max_bytes && files[i].written >= oldest) continue;
    fs::remove(files[i].path, ec);
    spdlog::debug("responses: dropped {} (store limits)", files[i].path.filename().string());
  }
}

}  // namespace zest::api::responses
