#include "engines/openai_request_json.h"

#include <gtest/gtest.h>

#include "engines/engine_locator.h"
#include "engines/llama_server_adapter.h"
#include "engines/whisper_adapter.h"

namespace zest::engines {
namespace {

using nlohmann::json;

ChatRequest Chat() {
  ChatRequest r;
  r.model = "client-name";
  r.messages.push_back(Message::Text("user", "hi"));
  return r;
}

TEST(OpenAiRequestJsonTest, WritesTheTypedFieldsOverThePassedOnOnes) {
  ChatRequest r = Chat();
  r.extra = {{"logit_bias", {{"42", -100}}}, {"temperature", "the client's"}, {"user", "u1"}};
  r.sampling.temperature = 0.5;
  r.sampling.top_k = 40;
  r.sampling.n_keep = 4;
  r.sampling.stop = std::vector<std::string>{"END"};
  r.max_tokens = 7;
  r.stream = true;
  r.include_usage = true;
  const json out = OpenAiRequestJson(r, {.model = "tiny"});
  EXPECT_EQ(out["model"], "tiny");
  EXPECT_EQ(out["logit_bias"], (json{{"42", -100}}));
  EXPECT_EQ(out["user"], "u1");
  EXPECT_EQ(out["temperature"], 0.5);
  EXPECT_EQ(out["top_k"], 40);
  EXPECT_EQ(out["n_keep"], 4);
  EXPECT_EQ(out["stop"], json::array({"END"}));
  EXPECT_EQ(out["max_tokens"], 7);
  EXPECT_EQ(out["stream"], true);
  EXPECT_EQ(out["stream_options"], (json{{"include_usage", true}}));
  EXPECT_EQ(out["messages"], json::parse(R"([{"role":"user","content":"hi"}])"));
  EXPECT_FALSE(out.contains("tools"));
  EXPECT_FALSE(out.contains("top_p")) << "unset samplers are the engine's";
}

TEST(OpenAiRequestJsonTest, MessagesKeepPartsToolCallsAndWhatZestDoesNotModel) {
  ChatRequest r;
  Message user = Message::Text("user", "");
  user.content = Message::Content::kParts;
  user.parts.push_back({.type = ContentPart::Type::kText, .text = "look"});
  user.parts.push_back(
      {.type = ContentPart::Type::kImage, .url = "data:image/png;base64,AAAA", .detail = "low"});
  user.parts.push_back({.type = ContentPart::Type::kOther,
                        .extra = {{"type", "input_audio"}, {"input_audio", {{"data", "x"}}}}});
  user.extra = {{"name", "ann"}};
  r.messages.push_back(user);
  Message assistant = Message::Text("assistant", "");
  assistant.content = Message::Content::kNull;
  assistant.reasoning = "hmm";
  assistant.tool_calls.push_back({.id = "c1", .name = "f", .arguments = R"({"x":1})"});
  r.messages.push_back(assistant);
  Message tool = Message::Text("tool", "42");
  tool.tool_call_id = "c1";
  r.messages.push_back(tool);
  Message absent = Message::Text("assistant", "");
  absent.content = Message::Content::kAbsent;
  r.messages.push_back(absent);
  const json m = OpenAiRequestJson(r, {})["messages"];
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0]["name"], "ann");
  EXPECT_EQ(m[0]["content"], json::parse(R"([{"type":"text","text":"look"},
    {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}},
    {"type":"input_audio","input_audio":{"data":"x"}}])"));
  EXPECT_TRUE(m[1]["content"].is_null());
  EXPECT_EQ(m[1]["reasoning_content"], "hmm");
  EXPECT_EQ(m[1]["tool_calls"], json::parse(R"([{"id":"c1","type":"function",
    "function":{"name":"f","arguments":"{\"x\":1}"}}])"));
  EXPECT_EQ(m[2], (json{{"role", "tool"}, {"content", "42"}, {"tool_call_id", "c1"}}));
  EXPECT_EQ(m[3], (json{{"role", "assistant"}}));
}

TEST(OpenAiRequestJsonTest, ToolsChoiceReasoningAndFormat) {
  ChatRequest r = Chat();
  r.tools.push_back({.name = "f",
                     .description = "does f",
                     .parameters = {{"type", "object"}},
                     .strict = true,
                     .extra = {{"x-zest", 1}}});
  r.tool_choice = ToolChoice{ToolChoice::Mode::kFunction, "f"};
  r.parallel_tool_calls = false;
  r.thinking = false;
  r.reasoning_effort = "high";
  r.thinking_budget = 2048;
  r.extra = {{"chat_template_kwargs", {{"custom", 1}}}};
  r.response_format = {{"type", "json_object"}};
  const json out = OpenAiRequestJson(r, {});
  EXPECT_EQ(out["tools"], json::parse(R"([{"type":"function","function":{"name":"f",
    "description":"does f","parameters":{"type":"object"},"strict":true,"x-zest":1}}])"));
  EXPECT_EQ(out["tool_choice"], json::parse(R"({"type":"function","function":{"name":"f"}})"));
  EXPECT_EQ(out["parallel_tool_calls"], false);
  EXPECT_EQ(out["chat_template_kwargs"], (json{{"custom", 1}, {"enable_thinking", false}}));
  EXPECT_EQ(out["reasoning_effort"], "high");
  EXPECT_EQ(out["reasoning_budget_tokens"], 2048);
  EXPECT_EQ(out["response_format"], (json{{"type", "json_object"}}));
  for (auto [mode, text] :
       {std::pair{ToolChoice::Mode::kAuto, "auto"}, std::pair{ToolChoice::Mode::kNone, "none"},
        std::pair{ToolChoice::Mode::kRequired, "required"}}) {
    r.tool_choice = ToolChoice{mode, ""};
    EXPECT_EQ(OpenAiRequestJson(r, {})["tool_choice"], text);
  }
}

TEST(OpenAiRequestJsonTest, ATextCompletionTakesTheFormatAsLlamaServersJsonSchema) {
  ChatRequest r;
  r.kind = Capability::kCompletions;
  r.prompt = "say";
  r.response_format = {{"type", "json_object"}};
  json out = OpenAiRequestJson(r, {});
  EXPECT_EQ(out["prompt"], "say");
  EXPECT_FALSE(out.contains("messages"));
  EXPECT_FALSE(out.contains("response_format"));
  EXPECT_EQ(out["json_schema"], (json{{"type", "object"}}));
  r.response_format =
      json::parse(R"({"type":"json_schema","json_schema":{"name":"n","schema":{"type":"array"}}})");
  EXPECT_EQ(OpenAiRequestJson(r, {})["json_schema"], (json{{"type", "array"}}));
}

TEST(OpenAiRequestJsonTest, EmbeddingsCarryTheirInputAndPassedOnFieldsOnly) {
  ChatRequest r;
  r.kind = Capability::kEmbeddings;
  r.input = json::array({"a", "b"});
  r.extra = {{"encoding_format", "float"}};
  r.max_tokens = 5;
  EXPECT_EQ(OpenAiRequestJson(r, {.model = "e"}),
            (json{{"model", "e"}, {"input", {"a", "b"}}, {"encoding_format", "float"}}));
}

TEST(OpenAiRequestJsonTest, TheRelaysWaysOfAsking) {
  ChatRequest r = Chat();
  r.max_tokens = 50;
  r.extra = {{"stream_options", {{"include_usage", false}, {"other", 1}}}};
  json whole = OpenAiRequestJson(r, {.as_stream = true});
  EXPECT_EQ(whole["stream"], true);
  EXPECT_EQ(whole["stream_options"], (json{{"include_usage", true}}));
  r.stream = true;
  r.include_usage = true;
  json prefill = OpenAiRequestJson(r, {.slot = 3, .prompt_only = true});
  EXPECT_EQ(prefill["max_tokens"], 1);
  EXPECT_EQ(prefill["stream"], false);
  EXPECT_FALSE(prefill.contains("stream_options"));
  EXPECT_EQ(prefill["id_slot"], 3);
  EXPECT_EQ(prefill["cache_prompt"], true);
  json pinned = OpenAiRequestJson(r, {.slot = 1});
  EXPECT_EQ(pinned["max_tokens"], 50);
  EXPECT_EQ(pinned["id_slot"], 1);
}

TEST(OpenAiRequestJsonTest, InvalidUtf8IsReplacedNotThrown) {
  ChatRequest r = Chat();
  r.messages[0].text = "bad \xff byte";
  std::string text;
  EXPECT_NO_THROW(text = OpenAiRequestText(r, {}));
  EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos) << text;  // U+FFFD
}

TEST(ChatRequestTest, LogprobsAndChoicesAreReadFromThePassedOnFields) {
  ChatRequest r = Chat();
  EXPECT_FALSE(WantsLogprobs(r));
  EXPECT_EQ(Choices(r), 1);
  r.extra = {{"logprobs", false}, {"top_logprobs", nullptr}, {"n", 2}};
  EXPECT_FALSE(WantsLogprobs(r));
  EXPECT_EQ(Choices(r), 2);
  for (const json& asks : {json{{"logprobs", true}}, json{{"top_logprobs", 2}},
                           json{{"logprobs", 2}}, json{{"n_probs", 3}}}) {
    r.extra = asks;
    EXPECT_TRUE(WantsLogprobs(r)) << asks;
  }
  r.extra = {{"n", "two"}};
  EXPECT_EQ(Choices(r), 0);
  // llama-server reads n_cmpl first, and so does zest.
  r.extra = {{"n", 2}, {"n_cmpl", 3}};
  EXPECT_EQ(Choices(r), 3);
  EXPECT_EQ(ChoicesField(r), "n_cmpl");
}

// One slot per sequence the engine runs: n answers to each prompt of a
// list; a list of token ids is one prompt.
TEST(ChatRequestTest, SequencesAreChoicesTimesPrompts) {
  ChatRequest r = Chat();
  EXPECT_EQ(Sequences(r), 1);
  r.extra = {{"n", 3}};
  EXPECT_EQ(Sequences(r), 3);
  r.kind = Capability::kCompletions;
  r.prompt = json::array({"a", "b"});
  EXPECT_EQ(Sequences(r), 6);
  r.prompt = json::array({1, 2, 3});
  EXPECT_EQ(Sequences(r), 3);
  r.prompt = json::array({json::array({1, 2}), json::array({3})});
  r.extra = {{"n", "two"}};  // refused by CheckLimits; never less than one here
  EXPECT_EQ(Sequences(r), 2);
}

TEST(ChatCallTest, LlamaServerAsksWholeChatsAsStreamsUnlessTheyWantLogprobs) {
  LlamaServerAdapter adapter{NotFound("not needed")};
  ChatRequest r = Chat();
  EXPECT_TRUE(adapter.AsksAsStream(r));
  r.kind = Capability::kCompletions;
  EXPECT_TRUE(adapter.AsksAsStream(r));
  r.extra = {{"logprobs", 0}};
  EXPECT_TRUE(adapter.AsksAsStream(r));
  r.extra = {{"logprobs", 2}};
  EXPECT_FALSE(adapter.AsksAsStream(r));
  r.extra = json::object();
  r.stream = true;
  EXPECT_FALSE(adapter.AsksAsStream(r)) << "already a stream";
  r.stream = false;
  r.kind = Capability::kEmbeddings;
  EXPECT_FALSE(adapter.AsksAsStream(r));
}

TEST(ChatCallTest, TheCallGoesToTheKindsPathAndEnginesWithoutItRefuse) {
  LlamaServerAdapter adapter{NotFound("not needed")};
  ChatRequest r = Chat();
  Result<EngineCall> call = adapter.ChatCall(r, {.model = "tiny"});
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(call->path, "/v1/chat/completions");
  EXPECT_EQ(call->content_type, "application/json");
  EXPECT_EQ(json::parse(call->body)["model"], "tiny");
  r.kind = Capability::kEmbeddings;
  EXPECT_EQ(adapter.ChatCall(r, {})->path, "/v1/embeddings");
  WhisperAdapter whisper{WhisperSetup{}};
  EXPECT_EQ(whisper.ChatCall(Chat(), {}).status().code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace zest::engines
