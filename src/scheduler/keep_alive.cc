#include "scheduler/keep_alive.h"

namespace zest::scheduler {

void Residency::Begin(const std::string& model) {
  MutexLock lock(mu_);
  ++books_[model].busy;
}

void Residency::End(const std::string& model, const std::optional<KeepAlive>& requested,
                    Clock::time_point now) {
  MutexLock lock(mu_);
  Books& b = books_[model];
  if (b.busy > 0) --b.busy;
  KeepAlive keep = requested ? *requested : default_;
  b.expires = keep ? std::optional(now + *keep) : std::nullopt;
}

void Residency::Set(const std::string& model, KeepAlive keep_alive, Clock::time_point now) {
  MutexLock lock(mu_);
  books_[model].expires = keep_alive ? std::optional(now + *keep_alive) : std::nullopt;
}

void Residency::Forget(const std::string& model) {
  MutexLock lock(mu_);
  auto it = books_.find(model);
  if (it != books_.end() && it->second.busy == 0) books_.erase(it);
}

std::vector<std::string> Residency::Expired(Clock::time_point now) const {
  MutexLock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [model, b] : books_) {
    if (b.busy == 0 && b.expires && *b.expires <= now) out.push_back(model);
  }
  return out;
}

std::optional<Residency::Clock::time_point> Residency::ExpiresAt(const std::string& model) const {
  MutexLock lock(mu_);
  auto it = books_.find(model);
  if (it == books_.end() || it->second.busy > 0) return std::nullopt;
  return it->second.expires;
}

}  // namespace zest::scheduler
