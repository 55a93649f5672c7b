#include "core/logging.h"

#include <gtest/gtest.h>

namespace zest {
namespace {

TEST(JsonLogLineTest, MovesTheRequestTagIntoItsOwnField) {
  EXPECT_EQ(
      JsonLogLine("t", "info", RequestTag("abc-1") + "POST /v1/x 200"),
      "{\"time\":\"t\",\"level\":\"info\",\"request_id\":\"abc-1\",\"msg\":\"POST /v1/x 200\"}\n");
}

TEST(JsonLogLineTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonLogLine("t", "warn", "a\"b\\c\nd\x01"),
            "{\"time\":\"t\",\"level\":\"warn\",\"msg\":\"a\\\"b\\\\c\\nd\\u0001\"}\n");
  // Not a tag: no closing "] ".
  EXPECT_EQ(JsonLogLine("t", "info", "[req:x"),
            "{\"time\":\"t\",\"level\":\"info\",\"msg\":\"[req:x\"}\n");
}

}  // namespace
}  // namespace zest
