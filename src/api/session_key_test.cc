#include "api/session_key.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

TEST(SessionKeyTest, ScopedByTheKeyAndStable) {
  const std::string key = ScopedSessionKey("alice", "conversation-1");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, ScopedSessionKey("alice", "conversation-1"));
  EXPECT_NE(key, ScopedSessionKey("bob", "conversation-1")) << "another key's session";
  EXPECT_NE(key, ScopedSessionKey("alice", "conversation-2"));
  EXPECT_NE(ScopedSessionKey("ab", "c"), ScopedSessionKey("a", "bc")) << "no shifting the seam";
  EXPECT_NE(ScopedSessionKey("", "x"), "");
  EXPECT_EQ(ScopedSessionKey("alice", ""), "") << "no session, no key";
}

TEST(SessionKeyTest, TheHeaderComesBeforeTheBody) {
  http::Request request;
  EXPECT_EQ(ClientSession(request, "from-body"), "from-body");
  EXPECT_EQ(ClientSession(request, ""), "");
  request.headers.emplace_back("x-session-id", "from-header");
  EXPECT_EQ(ClientSession(request, "from-body"), "from-header");
}

engines::ChatRequest Conversation(std::string system, std::vector<std::string> turns) {
  engines::ChatRequest chat;
  chat.messages.push_back(engines::Message::Text("system", std::move(system)));
  for (std::size_t i = 0; i < turns.size(); ++i) {
    chat.messages.push_back(engines::Message::Text(i % 2 ? "assistant" : "user", turns[i]));
  }
  return chat;
}

TEST(SessionKeyTest, AConversationThatNamesNoneIsKnownByItsOpening) {
  const std::string rules(2000, 'r');
  const std::string first = OpeningSession(Conversation(rules, {"fix the bug"}));
  EXPECT_EQ(first.rfind("opening:", 0), 0u) << first;
  EXPECT_EQ(OpeningSession(Conversation(rules, {"fix the bug", "done", "now the tests"})), first)
      << "its later turns repeat the opening";
  EXPECT_NE(OpeningSession(Conversation(rules, {"write the docs"})), first)
      << "another first question, another conversation";
  EXPECT_NE(OpeningSession(Conversation(rules + "x", {"fix the bug"})), first);
  // The fields stay apart: moving text between them is another opening.
  EXPECT_NE(OpeningSession(Conversation(rules + "fix", {" the bug"})), first);
}

TEST(SessionKeyTest, AShortOpeningOrAnEmbeddingHasNoSession) {
  EXPECT_EQ(OpeningSession(Conversation("Be brief.", {"Hi!"})), "")
      << "a prompt read again as quickly as it is restored";
  EXPECT_EQ(OpeningSession(Conversation("Be brief.", {"Hi!", "Hello.", std::string(4000, 'x')})),
            "")
      << "a long later turn does not make the opening long";
  engines::ChatRequest embedding;
  embedding.kind = engines::Capability::kEmbeddings;
  embedding.input = std::string(4000, 'e');
  EXPECT_EQ(OpeningSession(embedding), "");
  engines::ChatRequest completion;
  completion.kind = engines::Capability::kCompletions;
  completion.prompt = std::string(5000, 'p');
  const std::string opening = OpeningSession(completion);
  EXPECT_NE(opening, "");
  completion.prompt = std::string(5000, 'p') + "more";
  EXPECT_EQ(OpeningSession(completion), opening) << "a text completion's first 4 KiB";
}

}  // namespace
}  // namespace zest::api
