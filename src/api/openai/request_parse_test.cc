#include "api/openai/request_parse.h"

#include <gtest/gtest.h>

#include "engines/openai_request_json.h"

namespace zest::api::openai {
namespace {

using engines::Capability;
using engines::ContentPart;
using engines::Message;
using nlohmann::json;

TEST(RequestParseTest, ChatRequestGivesModelAndStream) {
  auto r = ParseInferenceRequest(
      Capability::kChat,
      R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->model, "m");
  EXPECT_TRUE(r->stream);
  EXPECT_EQ(r->kind, Capability::kChat);
  ASSERT_EQ(r->messages.size(), 1u);
  EXPECT_EQ(r->messages[0].role, "user");
  EXPECT_EQ(r->messages[0].text, "hi");
  EXPECT_TRUE(r->tools.empty());
}

TEST(RequestParseTest, PromptCacheKeyIsTheSessionNotTheEngines) {
  std::string param;
  auto r = ParseInferenceRequest(
      Capability::kChat,
      R"({"model":"m","prompt_cache_key":"conv-1","messages":[{"role":"user","content":"hi"}]})",
      &param);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(TakePromptCacheKey(*r), "conv-1");
  EXPECT_FALSE(r->extra.contains("prompt_cache_key")) << "not sent to the engine";
  EXPECT_EQ(TakePromptCacheKey(*r), "") << "taken once";
}

TEST(RequestParseTest, StreamDefaultsToFalseAndNullIsFalse) {
  auto r = ParseInferenceRequest(Capability::kCompletions,
                                 R"({"model":"m","prompt":"x","stream":null})");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->stream);
  EXPECT_EQ(r->prompt, "x");
}

// What zest models is typed; the rest reaches the engine as it came.
TEST(RequestParseTest, TypesWhatZestActsOnAndPassesOnTheRest) {
  auto r = ParseInferenceRequest(Capability::kChat, R"({
    "model": "m", "keep_alive": "5m", "priority": "low",
    "messages": [
      {"role": "system", "content": "be brief", "name": "rules"},
      {"role": "user", "content": [
        {"type": "text", "text": "what is it", "cache_control": {"type": "ephemeral"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "x", "format": "wav"}}]},
      {"role": "assistant", "content": null, "reasoning_content": "hmm",
       "tool_calls": [{"id": "c1", "type": "function",
                       "function": {"name": "f", "arguments": "{\"a\":1}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "42"}],
    "tools": [{"type": "function", "function": {"name": "f", "description": "does f",
               "parameters": {"type": "object"}, "strict": true}}],
    "tool_choice": "required", "parallel_tool_calls": false,
    "temperature": 0.5, "top_k": 40, "seed": 7, "stop": "END", "n_keep": 2,
    "max_completion_tokens": 30, "max_tokens": 50,
    "response_format": {"type": "json_object"}, "reasoning_effort": "low",
    "stream_options": {"include_usage": true}, "logit_bias": {"42": -100}, "user": "u1",
    "chat_template_kwargs": {"enable_thinking": false}})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->keep_alive, Duration(std::chrono::minutes(5)));
  EXPECT_EQ(r->priority, "low");
  ASSERT_EQ(r->messages.size(), 4u);
  EXPECT_EQ(r->messages[0].extra, (json{{"name", "rules"}}));
  const Message& user = r->messages[1];
  ASSERT_EQ(user.content, Message::Content::kParts);
  ASSERT_EQ(user.parts.size(), 3u);
  EXPECT_EQ(user.parts[0].type, ContentPart::Type::kText);
  EXPECT_EQ(user.parts[0].extra, (json{{"cache_control", {{"type", "ephemeral"}}}}));
  EXPECT_EQ(user.parts[1].type, ContentPart::Type::kImage);
  EXPECT_EQ(user.parts[1].url, "data:image/png;base64,AAAA");
  EXPECT_EQ(user.parts[1].detail, "low");
  EXPECT_EQ(user.parts[2].type, ContentPart::Type::kOther);
  const Message& assistant = r->messages[2];
  EXPECT_EQ(assistant.content, Message::Content::kNull);
  EXPECT_EQ(assistant.reasoning, "hmm");
  ASSERT_EQ(assistant.tool_calls.size(), 1u);
  EXPECT_EQ(assistant.tool_calls[0].arguments, R"({"a":1})");
  EXPECT_EQ(r->messages[3].tool_call_id, "c1");
  ASSERT_EQ(r->tools.size(), 1u);
  EXPECT_EQ(r->tools[0].name, "f");
  EXPECT_EQ(r->tools[0].strict, true);
  EXPECT_EQ(r->tool_choice->mode, engines::ToolChoice::Mode::kRequired);
  EXPECT_EQ(r->parallel_tool_calls, false);
  EXPECT_EQ(r->sampling.temperature, 0.5);
  EXPECT_EQ(r->sampling.top_k, 40);
  EXPECT_EQ(r->sampling.seed, 7);
  EXPECT_EQ(r->sampling.n_keep, 2);
  EXPECT_EQ(r->sampling.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(r->max_tokens, 30) << "the smallest limit given";
  EXPECT_EQ(r->response_format, (json{{"type", "json_object"}}));
  EXPECT_EQ(r->reasoning_effort, "low");
  EXPECT_TRUE(r->include_usage);
  EXPECT_EQ(r->extra, json::parse(R"({"logit_bias": {"42": -100}, "user": "u1",
    "stream_options": {"include_usage": true}, "chat_template_kwargs": {"enable_thinking": false}})"));

  // Written back, it is the request the client sent, the limit made one.
  const json out = engines::OpenAiRequestJson(*r, {.model = "m"});
  EXPECT_EQ(
      out["messages"][1]["content"][0],
      json::parse(R"({"type":"text","text":"what is it","cache_control":{"type":"ephemeral"}})"));
  EXPECT_EQ(out["messages"][1]["content"][2],
            json::parse(R"({"type":"input_audio","input_audio":{"data":"x","format":"wav"}})"));
  EXPECT_EQ(out["messages"][2]["tool_calls"][0]["function"]["arguments"], R"({"a":1})");
  EXPECT_EQ(out["logit_bias"], (json{{"42", -100}}));
  EXPECT_EQ(out["chat_template_kwargs"], (json{{"enable_thinking", false}}));
  EXPECT_EQ(out["max_tokens"], 30);
  EXPECT_FALSE(out.contains("max_completion_tokens"));
  EXPECT_FALSE(out.contains("keep_alive")) << "zest's own, not the engine's";
}

// Issue 52, 1: a part reaches the engine, so only parts of an exact shape
// are read; one member more made an image part zest did not see (past
// max_images, max_image_pixels and image_url_hosts).
TEST(RequestParseTest, PartsOutsideTheirExactShapeAreRefused) {
  const char* bad[] = {
      R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","x":1}})",
      R"({"type":"image_url","image_url":{"url":"http://10.0.0.1/a.png"},"x":1})",
      R"({"type":"image_url","image_url":"data:image/png;base64,AAAA"})",
      R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":5}})",
      R"({"type":"input_audio","input_audio":{"data":"AAAA","format":"wav","url":"x"}})",
      R"({"type":"input_audio","input_audio":{"data":"AAAA"}})",
      R"({"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"},"x":1})",
      R"({"type":"text","text":"hi","image_url":{"url":"data:image/png;base64,AAAA"}})",
      R"({"type":"text","text":5})",
      R"({"type":"file","file":{"file_data":"AAAA"}})",
      R"({"type":"image","source":{"type":"base64","data":"AAAA"}})",
      R"({"image_url":{"url":"data:image/png;base64,AAAA"}})",
      R"("just a string")",
  };
  for (const char* part : bad) {
    const std::string body = std::string(R"({"model":"m","messages":[{"role":"user","content":[)") +
                             R"({"type":"text","text":"a"},)" + part + "]}]}";
    std::string param;
    auto r = ParseInferenceRequest(Capability::kChat, body, &param);
    ASSERT_FALSE(r.ok()) << part;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument) << part;
    EXPECT_EQ(param, "messages") << part;
    EXPECT_NE(r.status().message().find("messages[0].content[1]"), std::string::npos)
        << r.status().message();
  }
}

TEST(RequestParseTest, ToolCallsOfAnotherShapePassOnAsTheyCame) {
  auto r = ParseInferenceRequest(Capability::kChat, R"({"model":"m","messages":[
    {"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":{"x":1}}}]}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->messages[0].tool_calls.empty());
  EXPECT_EQ(r->messages[0].content, Message::Content::kAbsent);
  const json out = engines::OpenAiRequestJson(*r, {});
  EXPECT_EQ(out["messages"][0]["tool_calls"][0]["function"]["arguments"], (json{{"x", 1}}));
  EXPECT_FALSE(out["messages"][0].contains("content"));
}

TEST(RequestParseTest, EmbeddingsKeepTheirInputAndTheRest) {
  auto r = ParseInferenceRequest(Capability::kEmbeddings,
                                 R"({"model":"e","input":["a","b"],"encoding_format":"float"})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->input, json::array({"a", "b"}));
  EXPECT_EQ(r->extra, (json{{"encoding_format", "float"}}));
}

struct BadCase {
  Capability kind;
  const char* body;
  const char* param;  // expected param, "" when none
};

class RequestParseBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(RequestParseBadTest, IsInvalidArgumentNamingTheField) {
  std::string param;
  auto r = ParseInferenceRequest(GetParam().kind, GetParam().body, &param);
  ASSERT_FALSE(r.ok()) << GetParam().body;
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(param, GetParam().param);
}

constexpr const char* kUser = R"("messages":[{"role":"user","content":"x"}])";

INSTANTIATE_TEST_SUITE_P(
    All, RequestParseBadTest,
    ::testing::Values(
        BadCase{Capability::kChat, "{not json", ""}, BadCase{Capability::kChat, "[1,2]", ""},
        BadCase{Capability::kChat, R"({"messages":[{"role":"user"}]})", "model"},
        BadCase{Capability::kChat, R"({"model":"","messages":[]})", "model"},
        BadCase{Capability::kChat, R"({"model":3,"messages":[]})", "model"},
        BadCase{Capability::kChat, R"({"model":"m"})", "messages"},
        BadCase{Capability::kChat, R"({"model":"m","messages":[]})", "messages"},
        BadCase{Capability::kChat, R"({"model":"m","messages":["hi"]})", "messages"},
        BadCase{Capability::kChat, R"({"model":"m","messages":[{"role":3}]})", "messages"},
        BadCase{Capability::kChat, R"({"model":"m","messages":[{"role":"user","content":3}]})",
                "messages"},
        BadCase{Capability::kChat, R"({"model":"m","messages":[{"role":"user"}],"stream":"yes"})",
                "stream"},
        BadCase{Capability::kChat, R"({"model":"m","messages":[{"role":"user"}],"priority":1})",
                "priority"},
        BadCase{Capability::kChat,
                R"({"model":"m","messages":[{"role":"user"}],"keep_alive":"soon"})", "keep_alive"},
        BadCase{Capability::kCompletions, R"({"model":"m"})", "prompt"},
        BadCase{Capability::kCompletions, R"({"model":"m","prompt":5})", "prompt"},
        BadCase{Capability::kEmbeddings, R"({"model":"m"})", "input"}));

TEST(RequestParseTest, ToolsToolChoiceAndSamplersOfTheWrongShapeAreRefused) {
  for (const auto& [extra, param] : std::vector<std::pair<std::string, std::string>>{
           {R"("tools": {})", "tools"},
           {R"("tools": [{"type": "retrieval"}])", "tools"},
           {R"("tools": [{"type": "function", "function": {"description": "no name"}}])", "tools"},
           {R"("tool_choice": "sometimes")", "tool_choice"},
           {R"("tool_choice": {"type": "function"})", "tool_choice"},
           {R"("temperature": "hot")", "temperature"},
           {R"("top_k": 1.5)", "top_k"},
           {R"("stop": [1])", "stop"}}) {
    std::string param_seen;
    auto r = ParseInferenceRequest(Capability::kChat,
                                   "{\"model\":\"m\"," + std::string(kUser) + "," + extra + "}",
                                   &param_seen);
    EXPECT_FALSE(r.ok()) << extra;
    EXPECT_EQ(param_seen, param) << extra;
  }
}

TEST(RequestLimitsTest, MessagesAndTokenCap) {
  RequestLimits limits{2, 100};
  std::string param;
  auto three = ParseInferenceRequest(
      Capability::kChat,
      R"({"model":"m","messages":[{"role":"user"},{"role":"user"},{"role":"user"}]})", &param,
      limits);
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(param, "messages");
  auto big = ParseInferenceRequest(
      Capability::kCompletions, R"({"model":"m","prompt":"x","max_tokens":101})", &param, limits);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(param, "max_tokens");
  auto named = ParseInferenceRequest(Capability::kCompletions,
                                     R"({"model":"m","prompt":"x","max_completion_tokens":101})",
                                     &param, limits);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(param, "max_completion_tokens");
  EXPECT_TRUE(ParseInferenceRequest(Capability::kCompletions,
                                    R"({"model":"m","prompt":"x","max_tokens":100})", &param,
                                    limits)
                  .ok());
}

TEST(RequestLimitsTest, TokenLimitsAreIntegersFromZeroToTheCap) {
  RequestLimits limits{2, 100};
  for (const char* body : {R"({"model":"m","prompt":"x","max_tokens":-1})",
                           R"({"model":"m","prompt":"x","n_predict":-1})",
                           R"({"model":"m","prompt":"x","max_completion_tokens":-5})",
                           R"({"model":"m","prompt":"x","max_tokens":1.5})",
                           R"({"model":"m","prompt":"x","max_tokens":"10"})"}) {
    std::string param;
    auto r = ParseInferenceRequest(Capability::kCompletions, body, &param, limits);
    EXPECT_FALSE(r.ok()) << body;
    EXPECT_FALSE(param.empty()) << body;
  }
  auto none = ParseInferenceRequest(Capability::kCompletions, R"({"model":"m","prompt":"x"})",
                                    nullptr, limits);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->max_tokens.has_value());
  auto some = ParseInferenceRequest(Capability::kCompletions,
                                    R"({"model":"m","prompt":"x","n_predict":0})", nullptr, limits);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->max_tokens, 0);
}

TEST(RequestLimitsTest, CheckLimitsHoldsEveryApisRequest) {
  RequestLimits limits{2, 100};
  engines::ChatRequest r;
  r.messages = {Message::Text("user", "a"), Message::Text("user", "b")};
  r.max_tokens = 100;
  std::string param;
  EXPECT_TRUE(CheckLimits(r, limits, &param).ok());
  r.max_tokens = 101;
  EXPECT_FALSE(CheckLimits(r, limits, &param).ok());
  EXPECT_EQ(param, "max_tokens");
  r.max_tokens.reset();
  r.messages.push_back(Message::Text("user", "c"));
  EXPECT_FALSE(CheckLimits(r, limits, &param).ok());
  EXPECT_EQ(param, "messages");
}

// n (or llama-server's n_cmpl) runs that many sequences, a slot each: at
// most server.max_choices, and a positive integer.
TEST(RequestLimitsTest, ChoicesAreCapped) {
  RequestLimits limits{10, 100, 4};
  engines::ChatRequest r;
  std::string param;
  for (int n : {1, 4}) {
    r.extra = {{"n", n}};
    EXPECT_TRUE(CheckLimits(r, limits, &param).ok()) << n;
  }
  for (const nlohmann::json& n : {nlohmann::json(5), nlohmann::json(0), nlohmann::json(-1),
                                  nlohmann::json("2"), nlohmann::json(1.5)}) {
    r.extra = {{"n", n}};
    Status refused = CheckLimits(r, limits, &param);
    EXPECT_EQ(refused.code(), ErrorCode::kInvalidArgument) << n;
    EXPECT_EQ(param, "n");
  }
  r.extra = {{"n", 1}, {"n_cmpl", 5}};
  EXPECT_FALSE(CheckLimits(r, limits, &param).ok());
  EXPECT_EQ(param, "n_cmpl");
}

// Issue 52, MEDIUM 5: a list of 200 prompts took every slot of the engine.
// Lists of prompts and of embedding inputs are capped; a list of token ids
// is one prompt.
TEST(RequestLimitsTest, ListsOfPromptsAndInputsAreCapped) {
  RequestLimits limits{
      .max_messages = 10, .max_tokens = 100, .max_choices = 4, .max_prompts = 3, .max_inputs = 2};
  std::string param;
  engines::ChatRequest text;
  text.kind = engines::Capability::kCompletions;
  text.prompt = {"a", "b", "c"};
  EXPECT_TRUE(CheckLimits(text, limits, &param).ok());
  text.prompt.push_back("d");
  Status refused = CheckLimits(text, limits, &param);
  EXPECT_EQ(refused.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(param, "prompt");
  EXPECT_NE(refused.message().find("server.max_prompts"), std::string::npos);
  text.prompt = {1, 2, 3, 4, 5, 6};  // one prompt of token ids
  EXPECT_TRUE(CheckLimits(text, limits, &param).ok());
  engines::ChatRequest embed;
  embed.kind = engines::Capability::kEmbeddings;
  embed.input = {"a", "b"};
  EXPECT_TRUE(CheckLimits(embed, limits, &param).ok());
  embed.input.push_back("c");
  EXPECT_FALSE(CheckLimits(embed, limits, &param).ok());
  EXPECT_EQ(param, "input");
}

}  // namespace
}  // namespace zest::api::openai
