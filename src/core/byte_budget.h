// ByteBudget: a count of bytes that requests hold in memory at once (e.g.
// decoded audio waiting for its engine), with a ceiling. A request takes a
// lease of its size before it keeps the bytes, and is refused when the
// lease would go over, so many requests at once cannot multiply one upload's
// memory without bound.
//
// Thread-safe. The budget must outlive its leases.
#pragma once

#include <cstdint>
#include <optional>

#include "core/mutex.h"

namespace zest {

class ByteBudget {
 public:
  // Gives its bytes back when it goes.
  class Lease {
   public:
    Lease(Lease&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
      other.budget_ = nullptr;
    }
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

   private:
    friend class ByteBudget;
    Lease(ByteBudget* budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
    ByteBudget* budget_;
    uint64_t bytes_;
  };

  // `limit` 0: no limit.
  explicit ByteBudget(uint64_t limit) : limit_(limit) {}

  // A lease of `bytes`, or nullopt when it would take the held bytes past
  // the limit. A single request larger than the whole limit always fails.
  std::optional<Lease> TryTake(uint64_t bytes);
  uint64_t held() const;
  uint64_t limit() const { return limit_; }

 private:
  const uint64_t limit_;
  mutable Mutex mu_;
  uint64_t held_ GUARDED_BY(mu_) = 0;
};

}  // namespace zest
