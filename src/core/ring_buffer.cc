#include "core/ring_buffer.h"

#include <algorithm>

namespace zest {

void LineRing::Append(std::string_view bytes) {
  MutexLock lock(mu_);
  while (!bytes.empty()) {
    auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    partial_.append(bytes.substr(0, nl));
    PushLocked(std::move(partial_));
    partial_.clear();
    bytes.remove_prefix(nl + 1);
  }
}

void LineRing::Flush() {
  MutexLock lock(mu_);
  if (!partial_.empty()) {
    PushLocked(std::move(partial_));
    partial_.clear();
  }
}

std::vector<std::string> LineRing::Tail(std::size_t n) const {
  MutexLock lock(mu_);
  std::size_t start = lines_.size() > n ? lines_.size() - n : 0;
  return {lines_.begin() + static_cast<std::ptrdiff_t>(start), lines_.end()};
}

std::vector<std::string> LineRing::Since(uint64_t from, uint64_t* next) const {
  MutexLock lock(mu_);
  *next = stored_;
  uint64_t first = stored_ - lines_.size();  // number of lines_.front()
  std::size_t skip =
      from > first ? static_cast<std::size_t>(std::min<uint64_t>(from - first, lines_.size())) : 0;
  return {lines_.begin() + static_cast<std::ptrdiff_t>(skip), lines_.end()};
}

void LineRing::PushLocked(std::string line) {
  ++stored_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  lines_.push_back(std::move(line));
  while (lines_.size() > capacity_) lines_.pop_front();
}

}  // namespace zest
