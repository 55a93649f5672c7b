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

TEST(EngineEventTest, ReadOnceAndSentAsTheEnginesBytesUnlessChanged) {
  const std::string data =
      R"({"model":"m", "choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]})";
  EngineEvent untouched(data);
  FixChunk(untouched, /*add_role=*/false, /*model=*/nullptr);
  EXPECT_FALSE(untouched.parsed());  // nothing asked for its JSON
  EXPECT_EQ(untouched.Text().data(), data.data());
  EXPECT_FALSE(untouched.MayCarryCounts());

  // Its role is there: read, not changed, still the engine's bytes.
  EngineEvent with_role(data);
  const nlohmann::json* doc = &with_role.Doc();
  FixChunk(with_role, /*add_role=*/true, nullptr);
  EXPECT_FALSE(with_role.changed());
  EXPECT_EQ(with_role.Text(), data);  // the engine's spacing, not a dump
  EXPECT_EQ(&with_role.Doc(), doc);   // the one parse, shared

  const std::string alias = "my-alias";
  EngineEvent renamed(data);
  FixChunk(renamed, false, &alias);
  ASSERT_TRUE(renamed.changed());
  EXPECT_EQ(nlohmann::json::parse(renamed.Text())["model"], "my-alias");
  EXPECT_EQ(renamed.Text().data(), renamed.Text().data());  // dumped once

  EngineEvent closing(R"({"choices":[],"usage":{"prompt_tokens":3}})");
  EXPECT_TRUE(closing.MayCarryCounts());
  EngineEvent done("[DONE]");
  EXPECT_TRUE(done.done());
  EXPECT_TRUE(done.Doc().is_discarded());
}

}  // namespace
}  // namespace zest::relay
