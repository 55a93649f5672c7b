#include "http/body_budget.h"

namespace zest::http {

std::shared_ptr<void> BodyBudget::Reserve(uint64_t bytes) {
  uint64_t held = held_.load();
  do {
    if (limit_ > 0 && (bytes > limit_ || held > limit_ - bytes)) return nullptr;
  } while (!held_.compare_exchange_weak(held, held + bytes));
  // Not null (it points at the budget), and gives the bytes back.
  return std::shared_ptr<void>(static_cast<void*>(this),
                               [this, bytes](void*) { held_.fetch_sub(bytes); });
}

}  // namespace zest::http
