#include "api/answer_translator.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

using nlohmann::json;

TEST(ReadChatChunkTest, ReadsDeltasToolFragmentsAndTheClosingChunk) {
  ChatChunk chunk = ReadChatChunk(json::parse(R"({"choices":[{"index":0,"delta":{
      "content":"Hi","reasoning_content":"so",
      "tool_calls":[{"index":1,"id":"c","function":{"name":"f","arguments":"{\"a"}},"junk"]}}]})"));
  EXPECT_EQ(chunk.content, "Hi");
  EXPECT_EQ(chunk.reasoning, "so");
  ASSERT_EQ(chunk.tool_calls.size(), 1u);
  EXPECT_EQ(chunk.tool_calls[0].index, 1);
  EXPECT_EQ(chunk.tool_calls[0].id, "c");
  EXPECT_EQ(chunk.tool_calls[0].arguments, "{\"a");
  EXPECT_FALSE(chunk.finish_reason);
  EXPECT_TRUE(chunk.usage.is_null());

  ChatChunk last = ReadChatChunk(json::parse(
      R"({"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":3},
          "timings":{"prompt_ms":1.5}})"));
  EXPECT_EQ(last.finish_reason, "length");
  EXPECT_EQ(last.usage["prompt_tokens"], 3);
  EXPECT_EQ(last.timings["prompt_ms"], 1.5);

  ChatChunk text = ReadChatChunk(json::parse(R"({"choices":[{"text":"raw","index":0}]})"));
  EXPECT_EQ(text.content, "raw") << "a text completion's chunk";
}

TEST(ReadChatChunkTest, OddFieldsReadAsAbsent) {
  for (const char* odd : {R"({})", R"({"choices":null})", R"({"choices":[3]})",
                          R"({"choices":[{"delta":{"content":7,"tool_calls":{}}}]})",
                          R"({"choices":[{"delta":"x","finish_reason":1}],"usage":[]})"}) {
    ChatChunk chunk = ReadChatChunk(json::parse(odd));
    EXPECT_TRUE(chunk.content.empty() && chunk.tool_calls.empty() && !chunk.finish_reason &&
                chunk.usage.is_null())
        << odd;
  }
}

TEST(EngineErrorStatusTest, TheEnginesMessageWithAStatusForTheClient) {
  Status bad = EngineErrorStatus(400, R"({"error":{"code":400,"message":"bad grammar"}})");
  EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("bad grammar"), std::string::npos);
  EXPECT_EQ(EngineErrorStatus(404, "no").code(), ErrorCode::kNotFound);
  Status failed = EngineErrorStatus(500, "plain text");
  EXPECT_EQ(failed.code(), ErrorCode::kEngineFailed);
  EXPECT_NE(failed.message().find("plain text"), std::string::npos);
}

}  // namespace
}  // namespace zest::api
