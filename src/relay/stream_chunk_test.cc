// Chunks as llama-server (build 11669) streams them, taken from its output.
#include "relay/stream_chunk.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::relay {
namespace {

using nlohmann::json;

// The first chunk of a stream whose first tokens were held back as
// incomplete UTF-8: no role.
const std::string kNoRole =
    R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\ufffd9"}}],)"
    R"("created":1796277219,"id":"chatcmpl-m","model":"tiny","object":"chat.completion.chunk"})";
const std::string kWithRole =
    R"({"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],)"
    R"("created":1796277219,"id":"chatcmpl-m","model":"tiny","object":"chat.completion.chunk"})";

TEST(FixChunkTest, AddsTheRoleWhereTheFirstChunkHasNone) {
  auto fixed = FixChunk(kNoRole, /*add_role=*/true, nullptr);
  ASSERT_TRUE(fixed.has_value());
  json doc = json::parse(*fixed);
  EXPECT_EQ(doc["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(doc["choices"][0]["delta"]["content"],
            "\xef\xbf\xbd"
            "9");  // the rest kept
  EXPECT_EQ(doc["id"], "chatcmpl-m");
}

TEST(FixChunkTest, LeavesAChunkThatHasItsRoleOrNeedsNothing) {
  EXPECT_FALSE(FixChunk(kWithRole, true, nullptr).has_value());
  EXPECT_FALSE(FixChunk(kNoRole, false, nullptr).has_value());
  EXPECT_FALSE(FixChunk(R"({"error":{"message":"x"}})", true, nullptr).has_value());
  EXPECT_FALSE(FixChunk("[DONE]", true, nullptr).has_value());
}

TEST(FixChunkTest, RenamesTheModel) {
  const std::string client = "tiny";
  auto fixed = FixChunk(R"({"model":"llama3.2:1b","choices":[]})", false, &client);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(json::parse(*fixed)["model"], "tiny");
  EXPECT_EQ(WithModelName(R"({"model":"a","x":1})", "b"), R"({"model":"b","x":1})");
  EXPECT_EQ(WithModelName("not json", "b"), "not json");
}

}  // namespace
}  // namespace zest::relay
