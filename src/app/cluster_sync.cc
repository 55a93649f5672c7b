#include "app/cluster_sync.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>
#include <map>

#include "models/blob_transfer.h"

namespace zest::app {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

// The file's sha256, or an error; stops early when `cancel` turns true.
Result<std::string> HashFile(const std::filesystem::path& file, const std::atomic<bool>& cancel) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot read " + file.string() + ": " + std::strerror(errno));
  models::Sha256 sha;
  std::vector<char> buffer(1 << 20);
  ssize_t n = 0;
  while (!cancel.load()) {
    n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    sha.Update(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (n < 0) return IoError("cannot read " + file.string() + ": " + std::strerror(errno));
  if (cancel.load()) return Status(ErrorCode::kCancelled, "stopped");
  return sha.HexDigest();
}

}  // namespace

ClusterSync::ClusterSync(std::filesystem::path manifest, const models::Catalog* catalog,
                         models::PullService& pulls, Readiness& readiness)
    : manifest_(std::move(manifest)), catalog_(catalog), pulls_(pulls), readiness_(readiness) {}

ClusterSync::~ClusterSync() { Stop(); }

void ClusterSync::Start() {
  if (manifest_.empty()) {
    readiness_.Set(Readiness::State::kReady);
    return;
  }
  readiness_.Set(Readiness::State::kStarting,
                 "checking the cluster manifest's models (" + manifest_.string() + ")");
  startup_ = std::jthread([this] { Reconcile(); });
}

void ClusterSync::Stop() {
  cancel_.store(true);
  if (startup_.joinable()) startup_.join();
  blocking_.join();
}

json ClusterSync::SyncNow() {
  Reconcile();
  return Json();
}

void ClusterSync::SetState(std::size_t index, const ModelState& state) {
  MutexLock lock(mu_);
  if (index < states_.size()) states_[index] = state;
}

ClusterSync::ModelState ClusterSync::Check(const models::ManifestEntry& entry) {
  ModelState s{entry, "present", "", ""};
  if (!entry.pull.empty()) {
    // Pulling what is there already only lists the repo: the blobs are kept.
    Result<models::PullResult> pulled = pulls_.Pull(entry.pull, nullptr, &cancel_);
    if (pulled.ok()) {
      s.model = pulled->model;
      s.detail = "commit " + pulled->commit;
    } else {
      s.status = "failed";
      s.detail = pulled.status().message();
    }
    return s;
  }
  std::error_code ec;
  s.model = entry.file.stem().string();
  if (!std::filesystem::is_regular_file(entry.file, ec)) {
    s.status = "missing";
    s.detail = entry.file.string() + " is not there";
    return s;
  }
  Result<std::string> sha = HashFile(entry.file, cancel_);
  if (!sha.ok()) {
    s.status = "failed";
    s.detail = sha.status().message();
  } else if (*sha != entry.sha256) {
    s.status = "drift";
    s.detail = "its sha256 is " + *sha + "; the manifest says " + entry.sha256;
  }
  return s;
}

void ClusterSync::Reconcile() {
  MutexLock one_at_a_time(sync_mu_);
  Result<std::vector<models::ManifestEntry>> entries = models::ReadManifest(manifest_, catalog_);
  {
    MutexLock lock(mu_);
    syncing_ = true;
    error_ = entries.ok() ? "" : entries.status().message();
    if (entries.ok()) {
      states_.clear();
      for (const auto& e : *entries) states_.push_back({e, "checking", "", ""});
    }
  }
  std::size_t present = 0;
  const std::size_t total = entries.ok() ? entries->size() : 0;
  for (std::size_t i = 0; i < total && !cancel_.load(); ++i) {
    const models::ManifestEntry& entry = (*entries)[i];
    SetState(i, {entry, entry.pull.empty() ? "checking" : "pulling", "", ""});
    ModelState state = Check(entry);
    if (state.status == "present") ++present;
    if (state.status != "present") {
      spdlog::warn("cluster manifest: {} is {}: {}", entry.Describe(), state.status, state.detail);
    }
    SetState(i, state);
  }
  {
    MutexLock lock(mu_);
    syncing_ = false;
  }
  if (cancel_.load()) return;
  if (!entries.ok()) {
    spdlog::error("{}", entries.status().message());
    readiness_.Set(Readiness::State::kNotReady, entries.status().message());
  } else if (present < total) {
    readiness_.Set(Readiness::State::kNotReady,
                   std::to_string(present) + " of " + std::to_string(total) +
                       " models of the cluster manifest are present; see /api/v1/cluster");
  } else {
    spdlog::info("cluster manifest: all {} model(s) present", total);
    readiness_.Set(Readiness::State::kReady);
  }
}

json ClusterSync::Json() const {
  MutexLock lock(mu_);
  json models = json::array();
  bool all_present = error_.empty();
  for (const ModelState& s : states_) {
    json m = {{"status", s.status}};
    if (s.entry.pull.empty()) {
      m["file"] = s.entry.file.string();
      m["sha256"] = s.entry.sha256;
    } else {
      m["pull"] = s.entry.pull;
    }
    if (!s.model.empty()) m["model"] = s.model;
    if (!s.detail.empty()) m["detail"] = s.detail;
    all_present = all_present && s.status == "present";
    models.push_back(std::move(m));
  }
  json out = {{"manifest", manifest_.empty() ? json(nullptr) : json(manifest_.string())},
              {"in_sync", manifest_.empty() || (all_present && !syncing_)},
              {"syncing", syncing_},
              {"models", models}};
  if (!error_.empty()) out["error"] = error_;
  return out;
}

void ClusterSync::Register(http::Router& router) {
  router.Add("GET", "/api/v1/cluster",
             [this](http::Request&, http::ResponseWriter& w) -> asio::awaitable<void> {
               std::string body = Json().dump();
               co_await w.Send(200, "application/json", std::move(body));
             });
  router.Add("POST", "/api/v1/cluster/sync",
             [this](http::Request&, http::ResponseWriter& w) -> asio::awaitable<void> {
               // Pulls and hashes block: off the I/O threads.
               json state = co_await asio::co_spawn(
                   blocking_, [this]() -> asio::awaitable<json> { co_return SyncNow(); },
                   asio::use_awaitable);
               std::string body = state.dump();
               co_await w.Send(200, "application/json", std::move(body));
             });
}

void ClusterSync::AddGauges(metrics::Registry& metrics) {
  metrics.AddGaugeCallback(
      "zest_cluster_models", "Models of the cluster manifest, by state on this node.", {"status"},
      [this] {
        std::map<std::string, double> counts = {{"present", 0}, {"pulling", 0}, {"checking", 0},
                                                {"missing", 0}, {"drift", 0},   {"failed", 0}};
        {
          MutexLock lock(mu_);
          for (const ModelState& s : states_) counts[s.status]++;
        }
        std::vector<std::pair<metrics::LabelValues, double>> out;
        for (const auto& [status, n] : counts) out.push_back({{status}, n});
        return out;
      });
}

}  // namespace zest::app
