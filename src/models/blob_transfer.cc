#include "models/blob_transfer.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include "core/strings.h"
#include "models/http_fetch.h"
#include "models/hub_client.h"

namespace zest::models {
namespace {

// Range progress is recorded every few MiB: a crash re-fetches at most this
// much per range, and the sidecar is not rewritten for every packet.
constexpr uint64_t kRecordEveryBytes = 1ull << 20;
constexpr std::size_t kHashChunk = 4 << 20;  // read back per pread by the hasher
// Written data is handed to the disk every so often while the transfer runs,
// so the fdatasync before publishing waits for the last few MiB only, not
// the whole file: the disk works in parallel with the network.
constexpr uint64_t kWritebackEveryBytes = 16ull << 20;

double UnitRandom() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// Sleeps in small steps so a cancel is noticed quickly. False if stopped.
bool SleepUnlessStopped(std::chrono::milliseconds delay, const std::atomic<bool>& stop) {
  auto deadline = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < deadline) {
    if (stop.load()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !stop.load();
}

Status WriteAll(int fd, const char* data, std::size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      return Status(
          errno == ENOSPC || errno == EDQUOT ? ErrorCode::kTooLarge : ErrorCode::kInternal,
          std::string("cannot write the download: ") + std::strerror(errno));
    }
    data += w;
    n -= static_cast<std::size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

void RecordRange(const TransferTarget& t, const ByteRange& range, std::size_t index) {
  if (t.sidecar_fd < 0) return;
  std::string record = FormatRangeRecord(range);
  // Best effort: a lost record only means re-fetching a few MiB on resume.
  if (!WriteAll(t.sidecar_fd, record.data(), record.size(), RangeRecordOffset(index)).ok()) {
    spdlog::warn("cannot record download progress of {}", t.request->path);
  }
}

// One GET for the rest of `range`; what arrives is written at its offset.
struct Attempt {
  uint64_t discard = 0;  // leading bytes to drop (server ignored Range)
  bool started = false;
  uint64_t received = 0;
  uint64_t since_record = 0;
  uint64_t unsynced_from = 0;  // start of the bytes written but not yet handed to the disk
  uint64_t unsynced = 0;
  Status write_error;
};

// Starts writeback of what this attempt wrote so far (it does not wait).
void StartWriteback(int fd, Attempt& a) {
  if (a.unsynced == 0) return;
  ::sync_file_range(fd, static_cast<off_t>(a.unsynced_from), static_cast<off_t>(a.unsynced),
                    SYNC_FILE_RANGE_WRITE);
  a.unsynced_from += a.unsynced;
  a.unsynced = 0;
}

bool OnBytes(const TransferTarget& t, ByteRange& range, std::size_t index, Attempt& a, long status,
             std::string_view bytes) {
  if (t.options->on_received) t.options->on_received(bytes.size());
  if (!a.started) {
    a.started = true;
    // A 200 to a Range request is the whole file: skip to where we are.
    a.discard = status == 200 ? range.start + range.done : 0;
    a.unsynced_from = range.start + range.done;
  }
  uint64_t skip = std::min<uint64_t>(a.discard, bytes.size());
  a.discard -= skip;
  bytes.remove_prefix(skip);
  std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(bytes.size(), range.remaining()));
  if (n == 0) return range.remaining() > 0;
  a.write_error = WriteAll(t.fd, bytes.data(), n, range.start + range.done);
  if (!a.write_error.ok()) return false;
  range.done += n;
  if (t.hasher) t.hasher->Advance(index, range.start + range.done);
  a.received += n;
  a.since_record += n;
  a.unsynced += n;
  if (a.unsynced >= kWritebackEveryBytes) StartWriteback(t.fd, a);
  t.completed->fetch_add(n);
  if (a.since_record >= kRecordEveryBytes) {
    RecordRange(t, range, index);
    a.since_record = 0;
  }
  return range.remaining() > 0;
}

std::chrono::milliseconds RetryDelay(const TransferTarget& t, const HttpGetResult& r, int attempt) {
  if (r.status == 429 || r.status == 503) {
    auto it = r.headers.find("retry-after");
    if (it != r.headers.end()) {
      if (auto after = ParseRetryAfter(it->second, std::chrono::system_clock::now())) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
            std::min(*after, t.options->max_retry_after));
      }
    }
  }
  return BackoffDelay(attempt, t.options->backoff, UnitRandom());
}

std::string Describe(const HttpGetResult& r) {
  if (!r.transport_ok) return r.transport_error;
  if (r.status >= 200 && r.status < 300) return "the connection ended early";
  return "HTTP " + std::to_string(r.status);
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }

void Sha256::Update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }

std::string Sha256::HexDigest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_.get(), digest, &len);
  return LowerHex(digest, len);
}

FollowingHasher::FollowingHasher(int fd, uint64_t size, const std::vector<ByteRange>& ranges)
    : fd_(fd),
      size_(size),
      ranges_(ranges),
      frontiers_(std::make_unique<std::atomic<uint64_t>[]>(ranges.size())) {
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    frontiers_[i].store(ranges_[i].start + ranges_[i].done);
  }
  thread_ = std::thread([this] { Run(); });
}

FollowingHasher::~FollowingHasher() {
  abort_ = true;
  if (thread_.joinable()) thread_.join();
}

uint64_t FollowingHasher::ContiguousEnd() const {
  if (ranges_.empty()) return size_;
  uint64_t end = ranges_[0].start;  // what precedes the first range is on disk already
  for (std::size_t i = 0; i < ranges_.size(); ++i) {
    if (end < ranges_[i].start) break;
    end = std::max(end, frontiers_[i].load(std::memory_order_acquire));
    if (end < ranges_[i].end) break;
  }
  return std::min(end, size_);
}

void FollowingHasher::Run() {
  std::vector<char> buf(kHashChunk);
  uint64_t pos = 0;
  while (pos < size_) {
    if (abort_.load()) {
      status_ = Status(ErrorCode::kCancelled, "download cancelled");
      return;
    }
    uint64_t limit = ContiguousEnd();
    if (limit <= pos) {  // caught up with the network
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    while (pos < limit) {
      std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(buf.size(), limit - pos));
      ssize_t got = ::pread(fd_, buf.data(), want, static_cast<off_t>(pos));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        status_ = IoError(std::string("cannot read the download back: ") +
                          (got < 0 ? std::strerror(errno) : "unexpected end of file"));
        return;
      }
      sha_.Update(buf.data(), static_cast<std::size_t>(got));
      pos += static_cast<uint64_t>(got);
    }
  }
  digest_ = sha_.HexDigest();
}

Result<std::string> FollowingHasher::Finish() {
  if (thread_.joinable()) thread_.join();
  if (!status_.ok()) return status_;
  return digest_;
}

Status TransferRange(const TransferTarget& t, ByteRange& range, std::size_t index) {
  int failures = 0;
  while (range.remaining() > 0) {
    if (t.stop->load()) return Status(ErrorCode::kCancelled, "download cancelled");
    Attempt a;
    HttpGetOptions o;
    o.headers = t.request->headers;
    o.range_from = range.start + range.done;
    o.range_to = range.end - 1;
    o.stall_timeout_s = t.options->stall_timeout_s;
    o.cancel = t.stop;
    o.sink = [&](long status, std::string_view bytes) {
      return OnBytes(t, range, index, a, status, bytes);
    };
    HttpGetResult r = HttpGet(t.request->url, o);
    RecordRange(t, range, index);
    if (!a.write_error.ok()) return a.write_error;
    if (range.remaining() == 0) break;
    if (r.cancelled || t.stop->load()) return Status(ErrorCode::kCancelled, "download cancelled");
    bool http_error = r.transport_ok && (r.status < 200 || r.status >= 300);
    if (http_error && !RetryableHttpStatus(r.status)) {
      return HubClient::HttpError(r.status, t.request->repo, "file " + t.request->path,
                                  r.error_body);
    }
    failures = a.received > 0 ? 1 : failures + 1;
    if (failures > t.options->max_attempts) {
      return Unavailable("downloading " + t.request->path + " failed " + std::to_string(failures) +
                         " times in a row; last: " + Describe(r));
    }
    auto delay = RetryDelay(t, r, failures - 1);
    spdlog::warn("download of {} at byte {}: {}; retrying in {} ms", t.request->path,
                 range.start + range.done, Describe(r), delay.count());
    if (!SleepUnlessStopped(delay, *t.stop))
      return Status(ErrorCode::kCancelled, "download cancelled");
  }
  return Status::Ok();
}

Status TransferRanges(const TransferTarget& t, std::vector<ByteRange>& ranges) {
  if (ranges.size() == 1) return TransferRange(t, ranges[0], 0);
  std::vector<Status> results(ranges.size());
  // One failing range stops the others (the file cannot complete anyway);
  // the caller's stop is relayed by this thread while they run.
  std::atomic<bool> group_stop{false};
  std::atomic<std::size_t> running{ranges.size()};
  TransferTarget inner = t;
  inner.stop = &group_stop;
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      threads.emplace_back([&, i] {
        results[i] = TransferRange(inner, ranges[i], i);
        if (!results[i].ok()) group_stop.store(true);
        running.fetch_sub(1);
      });
    }
    while (running.load() > 0) {
      if (t.stop->load()) group_stop.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // A real error explains more than the cancellations it caused elsewhere.
  for (const Status& s : results) {
    if (!s.ok() && s.code() != ErrorCode::kCancelled) return s;
  }
  for (const Status& s : results) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace zest::models
