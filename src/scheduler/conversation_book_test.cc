#include "scheduler/conversation_book.h"

#include <gtest/gtest.h>

namespace zest::scheduler {
namespace {

TEST(ConversationBookTest, ATurnMovesItsConversationFirstWithItsNewTokens) {
  ConversationBook book;
  book.Record("a", 100);
  book.Record("b", 200);
  book.Record("a", 150);
  EXPECT_EQ(book.TokensNewestFirst(), (std::vector<uint64_t>{150, 200}));
}

// Without a session zest cannot tell a turn from a new conversation: each
// counts as its own (the ledger may hold too much for them, never too little).
TEST(ConversationBookTest, TurnsWithoutASessionCountEachOnItsOwn) {
  ConversationBook book;
  book.Record("", 10);
  book.Record("a", 100);
  book.Record("", 20);
  EXPECT_EQ(book.TokensNewestFirst(), (std::vector<uint64_t>{20, 100, 10}));
}

TEST(ConversationBookTest, TheOldestGoPastTheBound) {
  ConversationBook book;
  for (std::size_t i = 0; i < ConversationBook::kMaxConversations + 5; ++i) {
    book.Record("c" + std::to_string(i), i);
  }
  EXPECT_EQ(book.size(), ConversationBook::kMaxConversations);
  const std::vector<uint64_t> tokens = book.TokensNewestFirst();
  EXPECT_EQ(tokens.front(), ConversationBook::kMaxConversations + 4);
  EXPECT_EQ(tokens.back(), 5u);
  book.Record("c0", 1);  // forgotten: a new entry, not a move
  EXPECT_EQ(book.size(), ConversationBook::kMaxConversations);
}

}  // namespace
}  // namespace zest::scheduler
