#include "http/sse.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

// Feeds `stream` in pieces of `step` bytes and returns every event.
std::vector<SseSplitter::Event> FeedInPieces(std::string_view stream, std::size_t step) {
  SseSplitter splitter;
  std::vector<SseSplitter::Event> events;
  for (std::size_t i = 0; i < stream.size(); i += step) {
    for (auto& event : splitter.Feed(stream.substr(i, step))) events.push_back(std::move(event));
  }
  return events;
}

TEST(SseSplitterTest, SplitsAcrossEveryChunkBoundary) {
  const std::string stream =
      "data: {\"a\":1}\n\n"
      ": keep-alive\n\n"
      "event: delta\ndata: line one\ndata:line two\n\n"
      "data: [DONE]\n\n";
  for (std::size_t step = 1; step <= stream.size(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    auto events = FeedInPieces(stream, step);
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0].raw, "data: {\"a\":1}\n\n");
    EXPECT_EQ(events[0].data, "{\"a\":1}");
    EXPECT_EQ(events[1].raw, ": keep-alive\n\n");
    EXPECT_EQ(events[1].data, "");
    EXPECT_EQ(events[2].data, "line one\nline two");
    EXPECT_EQ(events[3].data, "[DONE]");
    std::string joined;
    for (const auto& event : events) joined += event.raw;
    EXPECT_EQ(joined, stream);  // byte-exact relay
  }
}

TEST(SseSplitterTest, HandlesCrlfTerminators) {
  const std::string stream = "data: x\r\n\r\ndata:  two spaces\r\ndata: y\r\n\r\ndata: tail";
  for (std::size_t step = 1; step <= stream.size(); ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    SseSplitter splitter;
    std::vector<SseSplitter::Event> events;
    for (std::size_t i = 0; i < stream.size(); i += step) {
      for (auto& event : splitter.Feed(std::string_view(stream).substr(i, step))) {
        events.push_back(std::move(event));
      }
    }
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].raw, "data: x\r\n\r\n");
    EXPECT_EQ(events[0].data, "x");
    // Only one leading space is stripped.
    EXPECT_EQ(events[1].data, " two spaces\ny");
    EXPECT_EQ(splitter.pending(), "data: tail");
  }
}

TEST(SseSplitterTest, NoEventWithoutBlankLine) {
  SseSplitter splitter;
  EXPECT_TRUE(splitter.Feed("data: a\n").empty());
  EXPECT_TRUE(splitter.Feed("data: b\r\n").empty());
  auto events = splitter.Feed("\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\nb");
  EXPECT_EQ(splitter.pending(), "");
}

TEST(SseFormatTest, FormatsDataAndComments) {
  EXPECT_EQ(SseData("{\"x\":1}"), "data: {\"x\":1}\n\n");
  EXPECT_EQ(SseComment("ping"), ": ping\n\n");
  SseSplitter splitter;
  auto events = splitter.Feed(SseData("p") + SseComment("c"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "p");
  EXPECT_EQ(events[1].data, "");
}

}  // namespace
}  // namespace zest::http
