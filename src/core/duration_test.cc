#include "core/duration.h"

#include <gtest/gtest.h>

namespace zest {
namespace {

using namespace std::chrono_literals;

std::chrono::milliseconds Ms(std::string_view text) {
  auto parsed = ParseDuration(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
  EXPECT_TRUE(parsed.ok() && parsed->has_value()) << text;
  return parsed.ok() && parsed->has_value() ? **parsed : -1ms;
}

TEST(ParseDuration, DurationsInOllamasForms) {
  EXPECT_EQ(Ms("10m"), 600000ms);
  EXPECT_EQ(Ms("1h30m"), 5400000ms);
  EXPECT_EQ(Ms("45s"), 45000ms);
  EXPECT_EQ(Ms("2.5s"), 2500ms);
  EXPECT_EQ(Ms("500ms"), 500ms);
  EXPECT_EQ(Ms("1m30s"), 90000ms);
  EXPECT_EQ(Ms("300"), 300000ms);  // a bare number is seconds
  EXPECT_EQ(Ms("0"), 0ms);
  EXPECT_EQ(Ms("0s"), 0ms);
}

TEST(ParseDuration, NegativeMeansForever) {
  for (const char* text : {"-1", "-1m", "-5s"}) {
    auto parsed = ParseDuration(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_FALSE(parsed->has_value()) << text;
  }
}

TEST(ParseDuration, RejectsWhatIsNotADuration) {
  for (const char* text : {"", "-", "m", "10x", "ten minutes", "1.2.3s", "5 m", "10m5", "abc",
                           "1e3", "99999999999999999999999999999999999"}) {
    auto parsed = ParseDuration(text);
    EXPECT_FALSE(parsed.ok()) << text;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.status().message().find("is not a duration"), std::string::npos);
    }
  }
}

TEST(FormatDuration, RoundTrips) {
  EXPECT_EQ(FormatDuration(std::nullopt), "forever");
  EXPECT_EQ(FormatDuration(600000ms), "10m0s");
  EXPECT_EQ(FormatDuration(5400000ms), "1h30m0s");
  EXPECT_EQ(FormatDuration(45000ms), "45s");
  EXPECT_EQ(FormatDuration(250ms), "250ms");
  EXPECT_EQ(Ms(FormatDuration(5400000ms)), 5400000ms);
}

}  // namespace
}  // namespace zest
