#include "engines/llama_token_count.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::engines {
namespace {

using nlohmann::json;

ChatRequest WeatherConversation() {
  ChatRequest request;
  request.model = "tiny-alias";
  request.messages.push_back(Message::Text("system", "be brief"));
  request.messages.push_back(Message::Text("user", "weather in Paris?"));
  Message call = Message::Text("assistant", "Let me look.");
  call.tool_calls.push_back(
      {.id = "toolu_1", .name = "get_weather", .arguments = R"({"city":"Paris"})"});
  request.messages.push_back(call);
  Message result = Message::Text("tool", "sunny");
  result.tool_call_id = "toolu_1";
  request.messages.push_back(result);
  request.tools.push_back({.name = "get_weather",
                           .description = "the weather in a city",
                           .parameters = json{{"type", "object"}}});
  request.tool_choice = ToolChoice{.mode = ToolChoice::Mode::kFunction, .function = "get_weather"};
  request.max_tokens = 100;
  request.stream = true;
  return request;
}

TEST(LlamaTokenCountTest, TextTurnsGoAsOpenAiWritesThemUnderTheEnginesModel) {
  const json body = json::parse(TokenCountBody(WeatherConversation(), "engine-model.gguf"));
  EXPECT_EQ(body["model"], "engine-model.gguf");  // not the client's alias
  ASSERT_EQ(body["messages"].size(), 4u);
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "be brief"}}));
  // String content: the route passes these on, tool calls and results as OpenAI's.
  const json& call = body["messages"][2];
  EXPECT_EQ(call["content"], "Let me look.");
  EXPECT_EQ(call["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(call["tool_calls"][0]["function"]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(body["messages"][3],
            (json{{"role", "tool"}, {"content", "sunny"}, {"tool_call_id", "toolu_1"}}));
  // Generation's fields are not the count's business.
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("max_tokens"));
}

TEST(LlamaTokenCountTest, ToolsAndTheChoiceInAnthropicsShape) {
  const json body = json::parse(TokenCountBody(WeatherConversation(), "m"));
  EXPECT_EQ(body["tools"], json::parse(R"([{"name":"get_weather",
      "description":"the weather in a city","input_schema":{"type":"object"}}])"));
  EXPECT_EQ(body["tool_choice"], (json{{"type", "tool"}, {"name", "get_weather"}}));
  ChatRequest request = WeatherConversation();
  request.tool_choice = ToolChoice{.mode = ToolChoice::Mode::kRequired};
  request.tools[0].parameters = nullptr;
  const json required = json::parse(TokenCountBody(request, "m"));
  EXPECT_EQ(required["tool_choice"], (json{{"type", "any"}}));
  EXPECT_EQ(required["tools"][0]["input_schema"], json::object());
}

TEST(LlamaTokenCountTest, ImagesAndContentlessTurnsInAFormTheRouteKeeps) {
  ChatRequest request;
  Message look;
  look.role = "user";
  look.content = Message::Content::kParts;
  look.parts.push_back({.type = ContentPart::Type::kText, .text = "what is this?"});
  look.parts.push_back({.type = ContentPart::Type::kImage, .url = "data:image/png;base64,AAAA"});
  look.parts.push_back({.type = ContentPart::Type::kOther, .extra = json{{"type", "input_audio"}}});
  request.messages.push_back(look);
  Message calls;
  calls.role = "assistant";
  calls.content = Message::Content::kAbsent;
  calls.tool_calls.push_back({.id = "c1", .name = "f", .arguments = "not json"});
  request.messages.push_back(calls);
  Message result;
  result.role = "tool";
  result.tool_call_id = "c1";
  result.content = Message::Content::kParts;
  result.parts.push_back({.type = ContentPart::Type::kText, .text = "done"});
  result.parts.push_back({.type = ContentPart::Type::kImage, .url = "https://x/y.png"});
  request.messages.push_back(result);

  const json body = json::parse(TokenCountBody(request, "m"));
  EXPECT_EQ(body["messages"][0], json::parse(R"({"role":"user","content":[
      {"type":"text","text":"what is this?"},
      {"type":"image","source":{"type":"url","url":"data:image/png;base64,AAAA"}}]})"));
  // No content member would be dropped by the route: null stands for it.
  EXPECT_TRUE(body["messages"][1].contains("content"));
  EXPECT_TRUE(body["messages"][1]["content"].is_null());
  EXPECT_EQ(body["messages"][1]["tool_calls"][0]["id"], "c1");
  // A tool result is text, still answering its call.
  EXPECT_EQ(body["messages"][2],
            (json{{"role", "tool"}, {"content", "done"}, {"tool_call_id", "c1"}}));
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("tool_choice"));
}

TEST(LlamaTokenCountTest, ReadsTheCountAndRefusesAnythingElse) {
  Result<uint64_t> count = ReadTokenCountAnswer(200, R"({"input_tokens":42})");
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 42u);
  for (auto [status, body] : {std::pair{200, R"({"input_tokens":-1})"}, std::pair{200, "[]"},
                              std::pair{500, R"({"input_tokens":3})"}, std::pair{200, "junk"}}) {
    Result<uint64_t> bad = ReadTokenCountAnswer(status, body);
    ASSERT_FALSE(bad.ok()) << body;
    EXPECT_EQ(bad.status().code(), ErrorCode::kEngineFailed);
  }
}

}  // namespace
}  // namespace zest::engines
