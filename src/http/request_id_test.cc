#include "http/request_id.h"

#include <gtest/gtest.h>

#include <set>

namespace zest::http {
namespace {

TEST(RequestIdTest, KeepsASafeClientId) {
  EXPECT_EQ(RequestIdFor("trace-42:a.b_C"), "trace-42:a.b_C");
  std::string longest(kMaxRequestIdLength, 'x');
  EXPECT_EQ(RequestIdFor(longest), longest);
}

TEST(RequestIdTest, ReplacesUnsafeOrOverlongIds) {
  for (std::string bad :
       {std::string(""), std::string("a b"), std::string("x\r\nSet-Cookie: y"), std::string("a\"b"),
        std::string("[req:x]"), std::string(kMaxRequestIdLength + 1, 'x')}) {
    std::string id = RequestIdFor(bad);
    EXPECT_NE(id, bad);
    EXPECT_EQ(id.size(), 16u);
    EXPECT_TRUE(IsValidRequestId(id)) << id;
  }
}

TEST(RequestIdTest, GeneratedIdsDiffer) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(RequestIdFor(""));
  EXPECT_EQ(ids.size(), 1000u);
}

}  // namespace
}  // namespace zest::http
