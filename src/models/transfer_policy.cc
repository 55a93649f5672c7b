#include "models/transfer_policy.h"

#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace zest::models {
namespace {

constexpr std::string_view kRangeMagic = "zest-ranges-v1";
// "%020llu %020llu %020llu\n": 3 × 20 digits, 2 spaces, a newline.
constexpr std::size_t kRecordBytes = 63;
constexpr std::size_t kHeaderBytes = 64;

}  // namespace

std::vector<ByteRange> PlanRanges(uint64_t from, uint64_t size, int connections,
                                  uint64_t min_range) {
  std::vector<ByteRange> out;
  if (from >= size) return out;
  uint64_t left = size - from;
  uint64_t count = std::max<uint64_t>(
      1, std::min<uint64_t>(connections, left / std::max<uint64_t>(min_range, 1)));
  uint64_t step = left / count;
  uint64_t start = from;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t end = i + 1 == count ? size : start + step;
    out.push_back({start, end, 0});
    start = end;
  }
  return out;
}

std::string FormatRangeHeader(uint64_t size, std::size_t count) {
  char buf[kHeaderBytes + 1];
  std::snprintf(buf, sizeof(buf), "%s %020" PRIu64 " %08zu", kRangeMagic.data(), size, count);
  std::string line(buf);
  line.resize(kHeaderBytes - 1, ' ');
  return line + "\n";
}

std::string FormatRangeRecord(const ByteRange& r) {
  char buf[kRecordBytes + 1];
  std::snprintf(buf, sizeof(buf), "%020" PRIu64 " %020" PRIu64 " %020" PRIu64 "\n", r.start, r.end,
                r.done);
  return std::string(buf, kRecordBytes);
}

std::size_t RangeRecordOffset(std::size_t index) { return kHeaderBytes + index * kRecordBytes; }

std::optional<std::vector<ByteRange>> ParseRangeState(std::string_view text, uint64_t size) {
  if (text.size() < kHeaderBytes) return std::nullopt;
  std::istringstream header{std::string(text.substr(0, kHeaderBytes))};
  std::string magic;
  uint64_t file_size = 0;
  std::size_t count = 0;
  if (!(header >> magic >> file_size >> count) || magic != kRangeMagic || file_size != size ||
      count == 0 || count > 256 || text.size() < RangeRecordOffset(count)) {
    return std::nullopt;
  }
  std::vector<ByteRange> ranges;
  uint64_t expected_start = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::istringstream line{std::string(text.substr(RangeRecordOffset(i), kRecordBytes))};
    ByteRange r;
    if (!(line >> r.start >> r.end >> r.done)) return std::nullopt;
    // Ranges must tile the rest of the file in order; anything else is a
    // sidecar from another download (or damage), and trusting it could
    // publish holes.
    if (i > 0 && r.start != expected_start) return std::nullopt;
    if (r.start > r.end || r.end > size || r.done > r.end - r.start) return std::nullopt;
    expected_start = r.end;
    ranges.push_back(r);
  }
  if (ranges.back().end != size) return std::nullopt;
  return ranges;
}

std::chrono::milliseconds BackoffDelay(int attempt, const BackoffPolicy& policy,
                                       double unit_random) {
  double ms = static_cast<double>(policy.base.count()) * std::pow(2.0, std::min(attempt, 30));
  ms = std::min(ms, static_cast<double>(policy.max.count()));
  double jitter = 0.5 + 0.5 * std::clamp(unit_random, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(ms * jitter));
}

std::optional<std::chrono::seconds> ParseRetryAfter(std::string_view value,
                                                    std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 9) return std::chrono::seconds(std::numeric_limits<int32_t>::max());
    return std::chrono::seconds(std::stoll(std::string(value)));
  }
  std::tm tm{};
  std::string text(value);
  const char* end = ::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  auto when = std::chrono::system_clock::from_time_t(::timegm(&tm));
  auto delta = std::chrono::duration_cast<std::chrono::seconds>(when - now);
  return std::max(delta, std::chrono::seconds(0));
}

bool RetryableHttpStatus(long status) {
  return status == 408 || status == 425 || status == 429 || (status >= 500 && status <= 599);
}

}  // namespace zest::models
