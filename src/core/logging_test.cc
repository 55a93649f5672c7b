#include "core/logging.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

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

// Issue 52's review of logs: a client's text (a model name, a path) with a
// newline forged a log line, with an escape sequence reached the terminal.
TEST(TextLogTest, ControlCharactersAreWrittenAsHexAndARecordStaysOneLine) {
  EXPECT_EQ(EscapeControls("a\nb\x1b[2J\tc\x7f"), "a\\x0ab\\x1b[2J\tc\\x7f");
  EXPECT_EQ(EscapeControls("plain: ok"), "plain: ok");
  std::shared_ptr<LineRing> ring = SetupLogging("info", "text");
  spdlog::info("unknown model 'x\n2026-12-07 00:00:00.000 info  forged'");
  std::vector<std::string> lines = ring->Tail(10);
  ASSERT_FALSE(lines.empty());
  const std::string& last = lines.back();
  EXPECT_NE(last.find("unknown model 'x\\x0a2026-12-07"), std::string::npos) << last;
  EXPECT_EQ(last.find('\n'), std::string::npos) << "one line: " << last;
}

}  // namespace
}  // namespace zest
