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

}  // namespace
}  // namespace zest::api
