// TokenBucket: a rate limit of `per_minute` requests with bursts up to the
// same number, refilled continuously. Pure (the caller passes the time);
// not thread-safe (the Authenticator guards its buckets with a mutex).
#pragma once

#include <chrono>

namespace zest::http {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts full.
  TokenBucket(int per_minute, Clock::time_point now);

  // Takes a token and returns 0, or returns the whole seconds (at least 1)
  // until a token will be available, taking nothing.
  int Take(Clock::time_point now);

 private:
  double capacity_;
  double per_second_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace zest::http
