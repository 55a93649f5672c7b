#include "models/downloader.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "models/blob_transfer.h"

namespace zest::models {
namespace fs = std::filesystem;

struct Downloader::InFlight {
  Mutex mu;
  CondVar cv;
  bool done GUARDED_BY(mu) = false;
  Status status GUARDED_BY(mu);
  std::atomic<uint64_t> completed{0};
  uint64_t total = 0;
  int interested = 0;  // callers waiting; guarded by Downloader::mu_
  std::atomic<bool> stop{false};
};

struct Downloader::Worker {
  std::atomic<bool> finished{false};
  std::jthread thread;
};

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string HumanBytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  std::ostringstream out;
  out.precision(u == 0 ? 0 : 1);
  out << std::fixed << v << " " << units[u];
  return out.str();
}

fs::path SidecarPath(const fs::path& incomplete) {
  fs::path p = incomplete;
  p += ".ranges";
  return p;
}

uint64_t AllocatedBytes(const fs::path& file, uint64_t cap) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  return std::min<uint64_t>(cap, static_cast<uint64_t>(st.st_blocks) * 512);
}

std::optional<std::vector<ByteRange>> ReadSidecar(const fs::path& path, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return ParseRangeState(text, size);
}

Status WriteSidecar(int fd, uint64_t size, const std::vector<ByteRange>& ranges) {
  std::string text = FormatRangeHeader(size, ranges.size());
  for (const ByteRange& r : ranges) text += FormatRangeRecord(r);
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    return IoError(std::string("cannot write the download's range record: ") +
                   std::strerror(errno));
  }
  return Status::Ok();
}

// True when `path` still names the file open as `fd` (not replaced since).
bool SameFile(int fd, const fs::path& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
         a.st_dev == b.st_dev;
}

Status ValidateRequest(const BlobRequest& r) {
  if (!HfStore::ValidRepoId(r.repo) || !HfStore::ValidRepoPath(r.path) ||
      !HfStore::ValidSha256(r.sha256) || !HfStore::ValidCommit(r.commit)) {
    return InvalidArgument("refusing to download " + r.repo + "/" + r.path +
                           ": invalid repo, path, commit or sha256");
  }
  return Status::Ok();
}

}  // namespace

Downloader::Downloader(const HfStore& store, DownloadOptions options)
    : store_(store), options_(std::move(options)) {}

Downloader::~Downloader() {
  std::list<std::unique_ptr<Worker>> workers;
  {
    MutexLock lock(mu_);
    for (auto& [key, entry] : in_flight_) entry->stop.store(true);
    workers.swap(workers_);
  }
  workers.clear();  // joins
}

uint64_t Downloader::BytesNeeded(const BlobRequest& r) const {
  if (fs::exists(store_.BlobPath(r.repo, r.sha256))) return 0;
  return r.size - AllocatedBytes(store_.IncompletePath(r.repo, r.sha256), r.size);
}

Status Downloader::CheckFreeSpace(const fs::path& dir, uint64_t needed) const {
  // No test hook pretends a size here: the test of a full disk runs zest on
  // a real 1 MiB tmpfs (tests/integration/pull.test.mjs), so what is tested
  // is this statvfs, and no setting can switch the check off in a release.
  struct statvfs vfs {};
  if (::statvfs(dir.c_str(), &vfs) != 0) {
    return IoError("cannot check free space in " + dir.string() + ": " + std::strerror(errno));
  }
  const uint64_t available = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (needed <= available) return Status::Ok();
  return Status(ErrorCode::kTooLarge, "not enough disk space in " + dir.string() +
                                          ": the download needs " + HumanBytes(needed) + ", " +
                                          HumanBytes(available) + " available");
}

Status Downloader::Fetch(const BlobRequest& request, const ProgressFn& progress,
                         const std::atomic<bool>* cancel) {
  ZEST_RETURN_IF_ERROR(ValidateRequest(request));
  fs::path blob = store_.BlobPath(request.repo, request.sha256);
  fs::path absent = blob;
  absent += ".none";  // Publish removes `verified` when the blob exists: name nothing
  if (fs::exists(blob)) {
    if (progress) progress(request.size, request.size);
    MutexLock publish_lock(publish_mu_);
    return store_.Publish(request.repo, request.commit, request.path, request.sha256, absent);
  }
  ReapWorkers();
  bool owner = false;
  std::shared_ptr<InFlight> entry = Join(request, &owner);
  while (true) {
    {
      MutexLock lock(entry->mu);
      if (entry->cv.wait_for(lock, std::chrono::milliseconds(100),
                             [&]() REQUIRES(entry->mu) { return entry->done; }))
        break;
    }
    if (progress) progress(entry->completed.load(), request.size);
    if (cancel && cancel->load()) {
      Leave(*entry);
      return Status(ErrorCode::kCancelled, "pull cancelled");
    }
  }
  Leave(*entry);
  Status status;
  {
    MutexLock lock(entry->mu);
    status = entry->status;
  }
  if (!status.ok()) return status;
  if (progress) progress(request.size, request.size);
  MutexLock publish_lock(publish_mu_);
  return store_.Publish(request.repo, request.commit, request.path, request.sha256, absent);
}

std::shared_ptr<Downloader::InFlight> Downloader::Join(const BlobRequest& request, bool* owner) {
  std::string key = store_.BlobPath(request.repo, request.sha256).string();
  MutexLock lock(mu_);
  auto& slot = in_flight_[key];
  *owner = slot == nullptr;
  if (*owner) {
    slot = std::make_shared<InFlight>();
    slot->total = request.size;
    auto worker = std::make_unique<Worker>();
    Worker* w = worker.get();
    // A member function, with the entry and request copied in: the worker
    // outlives this call and, if its caller cancels, the caller too.
    w->thread = std::jthread([this, w, entry = slot, request] {
      RunDownload(entry, request);
      w->finished.store(true);
    });
    workers_.push_back(std::move(worker));
  }
  ++slot->interested;
  return slot;
}

void Downloader::Leave(InFlight& entry) {
  MutexLock lock(mu_);
  if (--entry.interested > 0) return;
  // Nobody waits any more: stop, and let the next caller start afresh (it
  // resumes from the partial file once this download lets go of its lock).
  entry.stop.store(true);
  for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
    if (it->second.get() == &entry) {
      in_flight_.erase(it);
      break;
    }
  }
}

void Downloader::ReapWorkers() {
  std::list<std::unique_ptr<Worker>> done;
  {
    MutexLock lock(mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      auto next = std::next(it);
      if ((*it)->finished.load()) done.splice(done.end(), workers_, it);
      it = next;
    }
  }
  done.clear();  // joins threads that already returned
}

void Downloader::RunDownload(const std::shared_ptr<InFlight>& entry, BlobRequest request) {
  Status status = Download(*entry, request);
  if (!status.ok() && status.code() != ErrorCode::kCancelled) {
    spdlog::warn("download of {}/{} failed: {}", request.repo, request.path, status.message());
  }
  {
    MutexLock lock(mu_);
    auto it = in_flight_.find(store_.BlobPath(request.repo, request.sha256).string());
    if (it != in_flight_.end() && it->second == entry) in_flight_.erase(it);
  }
  MutexLock lock(entry->mu);
  entry->done = true;
  entry->status = status;
  entry->cv.notify_all();
}

namespace {

// A write lock on the whole file, owned by the open file description (fcntl
// F_OFD_SETLK): released when `fd` closes, never by another thread's close,
// and, unlike flock(), sent to the server as a byte-range lock on NFSv4, so
// nodes sharing one cache over NFS download a file once. False while
// another holder has it (errno EAGAIN or EACCES).
bool TryLockWholeFile(int fd) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // to the end, however long the file grows
  return ::fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

}  // namespace

Status Downloader::WaitForLock(int fd, const InFlight& entry) const {
  bool logged = false;
  while (!TryLockWholeFile(fd)) {
    if (errno != EAGAIN && errno != EACCES && errno != EINTR) {
      return IoError(std::string("cannot lock the download: ") + std::strerror(errno));
    }
    if (!logged) spdlog::info("another process is downloading the same file; waiting for it");
    logged = true;
    if (entry.stop.load()) return Status(ErrorCode::kCancelled, "download cancelled");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Status::Ok();
}

namespace {

// Where a download stands: ranges still to fetch, and whether the single
// range can be hashed as it arrives (no sidecar: the prefix is contiguous).
struct Plan {
  std::vector<ByteRange> ranges;
  bool sidecar = false;
};

Result<Plan> PlanDownload(int fd, const fs::path& sidecar, const BlobRequest& r,
                          const DownloadOptions& o) {
  Plan plan;
  if (auto saved = ReadSidecar(sidecar, r.size)) {
    plan.ranges = *saved;
    plan.sidecar = true;
    return plan;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return IoError(std::string("cannot stat the download: ") + std::strerror(errno));
  uint64_t prefix = static_cast<uint64_t>(st.st_size);
  if (prefix > r.size && ::ftruncate(fd, 0) == 0) prefix = 0;  // not ours: start over
  int connections = std::max(1, o.connections);
  plan.ranges = PlanRanges(prefix, r.size, connections, o.min_range_bytes);
  if (plan.ranges.empty()) plan.ranges.push_back({r.size, r.size, 0});
  plan.sidecar = plan.ranges.size() > 1;
  return plan;
}

}  // namespace

Status Downloader::Download(InFlight& entry, const BlobRequest& r) {
  ZEST_RETURN_IF_ERROR(store_.PrepareRepo(r.repo));
  fs::path blob = store_.BlobPath(r.repo, r.sha256);
  fs::path incomplete = store_.IncompletePath(r.repo, r.sha256);
  fs::path sidecar = SidecarPath(incomplete);
  Fd fd(::open(incomplete.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (fd.get() < 0)
    return IoError("cannot open " + incomplete.string() + ": " + std::strerror(errno));
  ZEST_RETURN_IF_ERROR(WaitForLock(fd.get(), entry));
  if (fs::exists(blob)) {  // another process finished it while we waited
    if (SameFile(fd.get(), incomplete)) ::unlink(incomplete.c_str());
    return Status::Ok();
  }
  ZEST_ASSIGN_OR_RETURN(Plan plan, PlanDownload(fd.get(), sidecar, r, options_));
  uint64_t remaining = 0;
  for (const ByteRange& range : plan.ranges) remaining += range.remaining();
  entry.completed.store(r.size - remaining);
  ZEST_RETURN_IF_ERROR(
      CheckFreeSpace(blob.parent_path(), r.size - AllocatedBytes(incomplete, r.size)));
  Fd sidecar_fd(plan.sidecar ? ::open(sidecar.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1);
  if (plan.sidecar) ZEST_RETURN_IF_ERROR(WriteSidecar(sidecar_fd.get(), r.size, plan.ranges));
  FollowingHasher hasher(fd.get(), r.size, plan.ranges);
  spdlog::info("downloading {}/{} ({} of {} left, {} connection(s))", r.repo, r.path,
               HumanBytes(remaining), HumanBytes(r.size), plan.ranges.size());
  TransferTarget target{&r,          &options_, fd.get(), sidecar_fd.get(), &entry.completed,
                        &entry.stop, &hasher};
  auto t0 = std::chrono::steady_clock::now();
  ZEST_RETURN_IF_ERROR(TransferRanges(target, plan.ranges));
  auto t1 = std::chrono::steady_clock::now();
  Status published = VerifyAndPublish(fd.get(), r, hasher);
  auto t2 = std::chrono::steady_clock::now();
  spdlog::debug("{}/{}: transfer {:.2f} s, verify and publish {:.2f} s", r.repo, r.path,
                std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count());
  return published;
}

Status Downloader::VerifyAndPublish(int fd, const BlobRequest& r, FollowingHasher& hasher) {
  fs::path incomplete = store_.IncompletePath(r.repo, r.sha256);
  ZEST_ASSIGN_OR_RETURN(std::string digest, hasher.Finish());
  std::error_code ec;
  if (digest != r.sha256) {
    fs::remove(incomplete, ec);
    fs::remove(SidecarPath(incomplete), ec);
    return Internal("sha256 mismatch for " + r.repo + "/" + r.path + ": expected " + r.sha256 +
                    ", got " + digest + "; the download was deleted and nothing was published");
  }
  // On disk before the rename makes it a blob: a crash must never leave a
  // published file with unwritten pages.
  if (::fdatasync(fd) != 0)
    return IoError(std::string("cannot sync the download: ") + std::strerror(errno));
  fs::remove(SidecarPath(incomplete), ec);
  MutexLock publish_lock(publish_mu_);
  return store_.Publish(r.repo, r.commit, r.path, r.sha256, incomplete);
}

}  // namespace zest::models
