// Transfer policy for downloads, as pure functions: how a file is split into
// parallel byte ranges, how progress of each range is recorded in a small
// sidecar file (so a crash resumes every range), how long to wait before a
// retry (exponential backoff with jitter, or the server's Retry-After), and
// which failures are worth retrying.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::models {

// [start, end) of a file, of which `done` bytes from `start` are on disk.
struct ByteRange {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t done = 0;
  uint64_t remaining() const { return end - start - done; }
  bool operator==(const ByteRange&) const = default;
};

// Splits [from, size) into at most `connections` ranges of nearly equal
// length, none shorter than `min_range` (so small files use one range).
std::vector<ByteRange> PlanRanges(uint64_t from, uint64_t size, int connections,
                                  uint64_t min_range);

// The sidecar: a header line and one fixed-width line per range, so each
// range rewrites only its own line (pwrite at RangeRecordOffset(i)).
std::string FormatRangeHeader(uint64_t size, std::size_t count);
std::string FormatRangeRecord(const ByteRange& range);
std::size_t RangeRecordOffset(std::size_t index);
// The ranges of a sidecar written for a file of `size` bytes; nullopt when it
// is malformed or for another size (the download then starts over).
std::optional<std::vector<ByteRange>> ParseRangeState(std::string_view text, uint64_t size);

struct BackoffPolicy {
  std::chrono::milliseconds base{500};
  std::chrono::milliseconds max{30000};
};
// base * 2^attempt, capped, scaled by a jitter factor in [0.5, 1.0) taken
// from `unit_random` (a number in [0, 1)) so parallel clients spread out.
std::chrono::milliseconds BackoffDelay(int attempt, const BackoffPolicy& policy,
                                       double unit_random);

// Retry-After as delta-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2015
// 07:28:00 GMT", relative to `now`); nullopt when absent or unparsable.
std::optional<std::chrono::seconds> ParseRetryAfter(std::string_view value,
                                                    std::chrono::system_clock::time_point now);

// 408, 425, 429 and 5xx: the server may answer next time.
bool RetryableHttpStatus(long status);

}  // namespace zest::models
