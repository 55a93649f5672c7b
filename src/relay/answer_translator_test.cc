#include "relay/answer_translator.h"

#include <gtest/gtest.h>

namespace zest::relay {
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

// A translator that says which of its parsed-form methods the relay's
// text-level defaults reached.
class Recorder : public AnswerTranslator {
 public:
  std::string_view stream_content_type() const override { return "application/x-ndjson"; }
  std::string Chunk(const json& chunk) override { return "chunk:" + chunk.dump(); }
  std::string End() override { return "end"; }
  std::string StreamError(const Status& status) override { return "error:" + status.message(); }
  Result<std::string> Whole(const json& answer) override {
    if (answer.contains("bad")) return InvalidArgument("bad answer");
    return "whole:" + answer.dump();
  }
};

// One event through the translator, as the relay hands it over.
std::optional<std::string> Event(AnswerTranslator& t, std::string_view data) {
  EngineEvent event(data);
  return t.StreamEvent(event);
}

TEST(AnswerTranslatorTest, StreamEventsGoThroughTheParsedForms) {
  Recorder t;
  EXPECT_FALSE(t.sse());
  EXPECT_EQ(Event(t, "[DONE]"), "end");
  EXPECT_EQ(Event(t, R"({"a":1})"), R"(chunk:{"a":1})");
  EXPECT_EQ(Event(t, "not json"), "");  // nothing, but not the event as it came
  std::optional<std::string> error = Event(t, R"({"error":{"code":400,"message":"no"}})");
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "error:the engine answered 400: no");
}

TEST(AnswerTranslatorTest, AStreamCutShortEndsWithTheApisError) {
  Recorder t;
  EXPECT_EQ(t.StreamEnd(true, "data: {\"par"), "");
  EXPECT_EQ(t.StreamEnd(false, ""), "error:the engine's stream ended before the answer did");
  EXPECT_EQ(t.ErrorEvent(503, R"({"error":{"message":"busy"}})"),
            "error:the engine answered 503: busy");
}

TEST(AnswerTranslatorTest, WholeAnswersAndErrors) {
  Recorder t;
  Result<ApiAnswer> ok = t.Answer(200, R"({"x":1})", "application/json", nullptr);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(ok->content_type, "application/json");
  EXPECT_EQ(ok->body, R"(whole:{"x":1})");
  Result<ApiAnswer> engine_error = t.Answer(404, R"({"error":{"message":"gone"}})", "", nullptr);
  EXPECT_EQ(engine_error.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(t.Answer(200, "[1", "", nullptr).status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(t.Answer(200, R"({"bad":1})", "", nullptr).status().code(),
            ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::relay
