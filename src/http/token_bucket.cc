#include "http/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace zest::http {

TokenBucket::TokenBucket(int per_minute, Clock::time_point now)
    : capacity_(std::max(1, per_minute)),
      per_second_(std::max(1, per_minute) / 60.0),
      tokens_(capacity_),
      last_(now) {}

int TokenBucket::Take(Clock::time_point now) {
  double elapsed = std::chrono::duration<double>(now - last_).count();
  if (elapsed > 0) {
    tokens_ = std::min(capacity_, tokens_ + elapsed * per_second_);
    last_ = now;
  }
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return 0;
  }
  return std::max(1, static_cast<int>(std::ceil((1.0 - tokens_) / per_second_)));
}

}  // namespace zest::http
