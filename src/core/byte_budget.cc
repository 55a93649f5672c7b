#include "core/byte_budget.h"

namespace zest {

ByteBudget::Lease::~Lease() {
  if (budget_ == nullptr) return;
  MutexLock lock(budget_->mu_);
  budget_->held_ -= bytes_;
}

std::optional<ByteBudget::Lease> ByteBudget::TryTake(uint64_t bytes) {
  MutexLock lock(mu_);
  if (limit_ > 0 && (bytes > limit_ || held_ > limit_ - bytes)) return std::nullopt;
  held_ += bytes;
  return Lease(this, bytes);
}

uint64_t ByteBudget::held() const {
  MutexLock lock(mu_);
  return held_;
}

}  // namespace zest
