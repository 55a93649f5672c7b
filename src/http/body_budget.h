// BodyBudget: the bytes of request bodies one server holds in memory at
// once. Each body is read whole before its handler runs and may be up to
// server.max_body_bytes (32 MiB), so without a bound above it twelve
// clients that each send 31 MB and stall held 372 MB (issue 52, MEDIUM 8),
// and the default connection limits allowed about 32 GB. A body's share is
// reserved when its headers arrive (its Content-Length, or the largest a
// body may be when it is chunked), before a byte of it is read, and given
// back when its request is done; a body that does not fit is answered 503
// with Retry-After and never read. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace zest::http {

class BodyBudget {
 public:
  // `bytes`: the budget; 0 = no limit.
  explicit BodyBudget(uint64_t bytes) : limit_(bytes) {}

  // `bytes` reserved until the returned handle goes (which must happen
  // while the budget lives); null when they do not fit beside what is
  // held now.
  std::shared_ptr<void> Reserve(uint64_t bytes);
  uint64_t held() const { return held_.load(); }
  uint64_t limit() const { return limit_; }

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> held_{0};
};

}  // namespace zest::http
