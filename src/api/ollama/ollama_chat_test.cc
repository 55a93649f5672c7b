#include "api/ollama/ollama_chat.h"

#include <gtest/gtest.h>

#include <sstream>

#include "engines/openai_request_json.h"

namespace zest::api::ollama {
namespace {

using nlohmann::json;

// The request as llama-server gets it.
json Body(const OllamaRequest& job) { return engines::OpenAiRequestJson(job.request, {}); }

// The lines of an NDJSON text, parsed.
std::vector<json> Lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

TEST(OllamaChatTest, MapsMessagesImagesToolCallsAndResults) {
  Result<OllamaRequest> job = ParseChatRequest(json::parse(R"({
    "model": "qwen:latest", "stream": false, "keep_alive": "5m",
    "messages": [
      {"role": "system", "content": "be brief"},
      {"role": "user", "content": "what is it", "images": ["iVBORw0KGgoAAAA", "/9j/4AAQ"]},
      {"role": "assistant", "content": "", "thinking": "hmm",
       "tool_calls": [{"function": {"name": "a", "arguments": {"x": 1}}},
                      {"function": {"name": "b", "arguments": {}}}]},
      {"role": "tool", "content": "B", "tool_name": "b"},
      {"role": "tool", "content": "A"}
    ],
    "tools": [{"type": "function", "function": {"name": "a"}}]})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->request.model, "qwen:latest");
  EXPECT_FALSE(job->request.stream);
  EXPECT_EQ(job->request.kind, engines::Capability::kChat);
  EXPECT_EQ(job->request.keep_alive, Duration(std::chrono::minutes(5)));
  const json body = Body(*job);
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[1]["content"][0], (json{{"type", "text"}, {"text", "what is it"}}));
  EXPECT_EQ(m[1]["content"][1]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgoAAAA");
  EXPECT_EQ(m[1]["content"][2]["image_url"]["url"], "data:image/jpeg;base64,/9j/4AAQ");
  EXPECT_EQ(m[2]["reasoning_content"], "hmm");
  ASSERT_EQ(m[2]["tool_calls"].size(), 2u);
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["arguments"], R"({"x":1})");
  // Results answer their calls: by tool name, else the oldest unanswered.
  EXPECT_EQ(m[3]["tool_call_id"], m[2]["tool_calls"][1]["id"]);
  EXPECT_EQ(m[4]["tool_call_id"], m[2]["tool_calls"][0]["id"]);
  EXPECT_EQ(Body(*job)["tools"].size(), 1u);
  EXPECT_FALSE(Body(*job).contains("stream_options"));
}

TEST(OllamaChatTest, MapsOptionsFormatAndThink) {
  Result<OllamaRequest> job = ParseChatRequest(json::parse(R"({
    "model": "m", "messages": [], "format": {"type": "object"}, "think": "high",
    "options": {"num_predict": 7, "temperature": 0.2, "top_k": 5, "min_p": 0.1, "seed": 3,
                "stop": "END", "repeat_penalty": 1.1, "num_keep": 4, "num_ctx": 8192,
                "num_gpu": 99}})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  const json b = Body(*job);
  EXPECT_TRUE(job->request.stream) << "Ollama streams unless told not to";
  EXPECT_EQ(b["stream_options"]["include_usage"], true);
  EXPECT_EQ(b["max_tokens"], 7);
  EXPECT_TRUE(job->request.max_tokens.has_value());
  EXPECT_EQ(b["temperature"], 0.2);
  EXPECT_EQ(b["top_k"], 5);
  EXPECT_EQ(b["n_keep"], 4);
  EXPECT_EQ(b["stop"], json::array({"END"}));
  EXPECT_FALSE(b.contains("num_ctx")) << "a load option, not the request's";
  EXPECT_EQ(b["response_format"]["type"], "json_schema");
  EXPECT_EQ(b["response_format"]["json_schema"]["schema"], (json{{"type", "object"}}));
  EXPECT_EQ(b["reasoning_effort"], "high");
  EXPECT_EQ(b["chat_template_kwargs"]["enable_thinking"], true);

  Result<OllamaRequest> plain = ParseChatRequest(json::parse(
      R"({"model": "m", "messages": [], "format": "json", "think": false,
          "options": {"num_predict": -1}})"));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Body(*plain)["response_format"], (json{{"type", "json_object"}}));
  EXPECT_EQ(Body(*plain)["chat_template_kwargs"]["enable_thinking"], false);
  EXPECT_FALSE(plain->request.max_tokens.has_value()) << "endless: zest's default limit";
}

TEST(OllamaChatTest, RefusesMalformedRequestsNamingTheField) {
  auto error = [](const char* body, bool generate = false) {
    Result<OllamaRequest> job =
        generate ? ParseGenerateRequest(json::parse(body)) : ParseChatRequest(json::parse(body));
    return job.ok() ? std::string("ok") : job.status().message();
  };
  EXPECT_NE(error(R"({"messages": []})").find("model"), std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "messages": {}})").find("messages"), std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "messages": [{"role": "x"}]})").find("messages[0].role"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "messages": [{"role": "user", "content": 3}]})")
                .find("messages[0].content"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"model": "m", "messages": [], "options": {"top_p": "x"}})").find("options.top_p"),
      std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "messages": [], "stream": "yes"})").find("stream"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "messages": [], "think": "max"})").find("think"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "prompt": "p", "suffix": "s", "images": ["x"]})", true)
                .find("suffix"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "prompt": "p", "context": [1]})", true).find("context"),
            std::string::npos);
  EXPECT_EQ(error(R"({"model": "m", "prompt": "p", "context": []})", true), "ok");
  EXPECT_NE(
      error(R"({"model": "m", "prompt": "p", "raw": true, "images": ["x"]})", true).find("raw"),
      std::string::npos);
}

TEST(OllamaChatTest, ASuffixIsFillInTheMiddleWithTheModelsTokens) {
  Result<OllamaRequest> job = ParseGenerateRequest(json::parse(
      R"({"model": "m", "prompt": "def f(", "suffix": "    return x", "system": "ignored"})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->request.kind, engines::Capability::kCompletions);
  models::ModelInfo info;
  EXPECT_NE(InsertPrompt("m", info, *job).message().find("does not support insert"),
            std::string::npos);
  info.fim_prefix = "<P>";
  info.fim_suffix = "<S>";
  info.fim_middle = "<M>";
  ASSERT_TRUE(InsertPrompt("m", info, *job).ok());
  EXPECT_EQ(Body(*job)["prompt"], "<P>def f(<S>    return x<M>");
  EXPECT_FALSE(Body(*job).contains("messages"));
  // Without a suffix nothing changes.
  Result<OllamaRequest> plain =
      ParseGenerateRequest(json::parse(R"({"model": "m", "prompt": "p"})"));
  ASSERT_TRUE(InsertPrompt("m", models::ModelInfo{}, *plain).ok());
  EXPECT_FALSE(Body(*plain).contains("prompt"));
}

TEST(OllamaChatTest, GenerateIsOneUserTurnOrARawPrompt) {
  Result<OllamaRequest> job = ParseGenerateRequest(
      json::parse(R"({"model": "m", "prompt": "hi", "system": "sys", "images": ["R0lGODlh"]})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_TRUE(job->generate);
  EXPECT_EQ(job->request.kind, engines::Capability::kChat);
  const json body = Body(*job);
  const json& m = body["messages"];
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0], (json{{"role", "system"}, {"content", "sys"}}));
  EXPECT_EQ(m[1]["content"][1]["image_url"]["url"], "data:image/gif;base64,R0lGODlh");
  Result<OllamaRequest> raw =
      ParseGenerateRequest(json::parse(R"({"model": "m", "prompt": "<s>[INST]", "raw": true})"));
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->request.kind, engines::Capability::kCompletions);
  EXPECT_EQ(Body(*raw)["prompt"], "<s>[INST]");
}

// llama-server's /v1/completions ignores response_format; its json_schema
// field is what holds there (tests/integration/ollama.test.mjs).
TEST(OllamaChatTest, FormatOnTheTextCompletionRoutesIsTheEnginesJsonSchema) {
  const json schema = {{"type", "object"}, {"required", {"n"}}};
  for (const char* extra : {R"("raw": true)", R"("suffix": "s")"}) {
    Result<OllamaRequest> json_mode = ParseGenerateRequest(json::parse(
        std::string(R"({"model": "m", "prompt": "p", "format": "json", )") + extra + "}"));
    ASSERT_TRUE(json_mode.ok()) << json_mode.status().message();
    EXPECT_EQ(json_mode->request.kind, engines::Capability::kCompletions);
    EXPECT_FALSE(Body(*json_mode).contains("response_format")) << extra;
    EXPECT_EQ(Body(*json_mode)["json_schema"], (json{{"type", "object"}})) << extra;
    json body = json::parse(std::string(R"({"model": "m", "prompt": "p", )") + extra + "}");
    body["format"] = schema;
    Result<OllamaRequest> with_schema = ParseGenerateRequest(body);
    ASSERT_TRUE(with_schema.ok());
    EXPECT_EQ(Body(*with_schema)["json_schema"], schema) << extra;
    EXPECT_FALSE(Body(*with_schema).contains("response_format")) << extra;
  }
  // Templated generate runs on the chat route: response_format as in chat.
  Result<OllamaRequest> chat =
      ParseGenerateRequest(json::parse(R"({"model": "m", "prompt": "p", "format": "json"})"));
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(Body(*chat)["response_format"], (json{{"type", "json_object"}}));
  EXPECT_FALSE(Body(*chat).contains("json_schema"));
}

TEST(OllamaChatTest, StreamsLinesWithWholeToolCallsAndRealTotals) {
  Result<OllamaRequest> job =
      ParseChatRequest(json::parse(R"({"model": "m:latest", "messages": []})"));
  ASSERT_TRUE(job.ok());
  OllamaAnswer answer(*job, std::chrono::steady_clock::now());
  std::string out;
  out += answer.Chunk(json::parse(R"({"choices":[{"index":0,"delta":{"role":"assistant"}}]})"));
  EXPECT_EQ(out, "") << "nothing to say yet";
  out += answer.Chunk(json::parse(R"({"choices":[{"delta":{"reasoning_content":"so"}}]})"));
  out += answer.Chunk(json::parse(R"({"choices":[{"delta":{"content":"Hi"}}]})"));
  out += answer.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get","arguments":"{\"ci"}}]}}]})"));
  out += answer.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Oslo\"}"}}]}}]})"));
  out += answer.Chunk(json::parse(R"({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})"));
  out += answer.Chunk(json::parse(
      R"({"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":9,
                               "prompt_tokens_details":{"cached_tokens":3}},
          "timings":{"prompt_ms":2.5,"predicted_ms":4.0}})"));
  out += answer.End();
  std::vector<json> lines = Lines(out);
  ASSERT_EQ(lines.size(), 4u) << out;
  EXPECT_EQ(lines[0]["message"]["thinking"], "so");
  EXPECT_EQ(lines[1]["message"]["content"], "Hi");
  EXPECT_EQ(lines[1]["model"], "m:latest");
  EXPECT_EQ(lines[1]["done"], false);
  const json& call = lines[2]["message"]["tool_calls"][0];
  EXPECT_EQ(call["function"]["name"], "get");
  EXPECT_EQ(call["function"]["arguments"], (json{{"city", "Oslo"}})) << "an object, whole";
  EXPECT_EQ(call["id"], "c1");
  const json& last = lines[3];
  EXPECT_EQ(last["done"], true);
  EXPECT_EQ(last["done_reason"], "stop");
  EXPECT_EQ(last["prompt_eval_count"], 8) << "only what the engine evaluated, not its cache";
  EXPECT_EQ(last["eval_count"], 9);
  EXPECT_EQ(last["prompt_eval_duration"], 2500000);
  EXPECT_EQ(last["eval_duration"], 4000000);
  EXPECT_GE(last["total_duration"].get<int64_t>(), 0);
  EXPECT_EQ(Lines(answer.StreamError(EngineFailed("gone")))[0], (json{{"error", "gone"}}));
}

TEST(OllamaChatTest, WholeAnswersAndHiddenThinking) {
  Result<OllamaRequest> job =
      ParseGenerateRequest(json::parse(R"({"model": "m", "think": false})"));
  ASSERT_TRUE(job.ok());
  OllamaAnswer answer(*job, std::chrono::steady_clock::now());
  Result<std::string> whole = answer.Whole(json::parse(R"({
    "choices": [{"message": {"content": "text", "reasoning_content": "secret"},
                 "finish_reason": "length"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 5}})"));
  ASSERT_TRUE(whole.ok());
  json out = json::parse(*whole);
  EXPECT_EQ(out["response"], "text");
  EXPECT_FALSE(out.contains("thinking")) << "think: false";
  EXPECT_EQ(out["done_reason"], "length");
  EXPECT_EQ(out["eval_count"], 5);
  EXPECT_FALSE(answer.Whole(json::parse(R"({"choices": []})")).ok());
}

}  // namespace
}  // namespace zest::api::ollama
