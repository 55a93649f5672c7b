#include "scheduler/conversation_book.h"

namespace zest::scheduler {

void ConversationBook::Record(const std::string& conversation, uint64_t tokens) {
  MutexLock lock(mu_);
  if (!conversation.empty()) {
    if (auto it = index_.find(conversation); it != index_.end()) {
      it->second->tokens = tokens;
      order_.splice(order_.begin(), order_, it->second);
      return;
    }
  }
  order_.push_front({conversation, tokens});
  if (!conversation.empty()) index_[conversation] = order_.begin();
  if (order_.size() > kMaxConversations) {
    if (!order_.back().conversation.empty()) index_.erase(order_.back().conversation);
    order_.pop_back();
  }
}

std::vector<uint64_t> ConversationBook::TokensNewestFirst() const {
  MutexLock lock(mu_);
  std::vector<uint64_t> tokens;
  tokens.reserve(order_.size());
  for (const Turn& turn : order_) tokens.push_back(turn.tokens);
  return tokens;
}

std::size_t ConversationBook::size() const {
  MutexLock lock(mu_);
  return order_.size();
}

}  // namespace zest::scheduler
