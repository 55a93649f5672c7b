#include "scheduler/session_prompts.h"

namespace zest::scheduler {

void SessionPrompts::Remember(const std::string& model, RememberedPrompt prompt) {
  const std::size_t size = prompt.body.size();
  const std::string key = Key(model, prompt.session);
  MutexLock lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) Drop(it->second);
  if (size > budget_) return;  // it would push out every other conversation, and still not fit
  order_.push_front({model, std::move(prompt)});
  index_[key] = order_.begin();
  bytes_ += size;
  while (bytes_ > budget_ && !order_.empty()) Drop(std::prev(order_.end()));
}

void SessionPrompts::Drop(Order::iterator it) {
  bytes_ -= it->prompt.body.size();
  index_.erase(Key(it->model, it->prompt.session));
  order_.erase(it);
}

std::vector<RememberedPrompt> SessionPrompts::ServedBy(const std::string& model,
                                                       pid_t engine) const {
  std::vector<RememberedPrompt> out;
  MutexLock lock(mu_);
  for (const Kept& kept : order_) {
    if (kept.model == model && kept.prompt.engine == engine) out.push_back(kept.prompt);
  }
  return out;
}

pid_t SessionPrompts::EngineOf(const std::string& model, const std::string& session) const {
  MutexLock lock(mu_);
  auto it = index_.find(Key(model, session));
  return it == index_.end() ? 0 : it->second->prompt.engine;
}

std::size_t SessionPrompts::Count(const std::string& model) const {
  MutexLock lock(mu_);
  std::size_t n = 0;
  for (const Kept& kept : order_) n += kept.model == model ? 1 : 0;
  return n;
}

std::size_t SessionPrompts::bytes() const {
  MutexLock lock(mu_);
  return bytes_;
}

}  // namespace zest::scheduler
