#include "scheduler/session_prompts.h"

#include <iterator>

namespace zest::scheduler {

// What one kept prompt costs beside its body: its strings (the model twice,
// the key in the list and the map, the path) and the list and map nodes. A
// client naming a new session on every tiny request must not hold several
// times the budget.
std::size_t SessionPrompts::Cost(const std::string& model, const RememberedPrompt& prompt) {
  constexpr std::size_t kNodes = 256;
  return prompt.body.size() + prompt.path.size() + 2 * (model.size() + prompt.session.size()) +
         kNodes;
}

void SessionPrompts::Remember(const std::string& model, RememberedPrompt prompt) {
  const std::size_t size = Cost(model, prompt);
  const std::string key = Key(model, prompt.session);
  MutexLock lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) Drop(it->second);
  if (size > budget_) return;  // it would push out every other conversation, and still not fit
  prompt.turn = ++turns_;
  prompt.saved = false;
  order_.push_front({model, std::move(prompt)});
  index_[key] = order_.begin();
  bytes_ += size;
  while (bytes_ > budget_ && !order_.empty()) Drop(std::prev(order_.end()));
}

void SessionPrompts::Drop(Order::iterator it) {
  bytes_ -= Cost(it->model, it->prompt);
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

uint64_t SessionPrompts::TurnOf(const std::string& model, const std::string& session) const {
  MutexLock lock(mu_);
  auto it = index_.find(Key(model, session));
  return it == index_.end() ? 0 : it->second->prompt.turn;
}

void SessionPrompts::MarkSaved(const std::string& model, const std::string& session,
                               uint64_t turn) {
  MutexLock lock(mu_);
  auto it = index_.find(Key(model, session));
  if (it != index_.end() && it->second->prompt.turn == turn) it->second->prompt.saved = true;
}

void SessionPrompts::Forget(const std::string& model, pid_t engine) {
  MutexLock lock(mu_);
  for (auto it = order_.begin(); it != order_.end();) {
    auto next = std::next(it);
    if (it->model == model && it->prompt.engine == engine) Drop(it);
    it = next;
  }
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
