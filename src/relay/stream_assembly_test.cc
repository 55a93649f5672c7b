#include "relay/stream_assembly.h"

#include <gtest/gtest.h>

#include <vector>

namespace zest::relay {
namespace {

using nlohmann::json;

json Assemble(std::string_view path, const std::vector<std::string>& events,
              const std::string& model = "tiny") {
  StreamAssembler assembler(path.ends_with("chat/completions"));
  for (const std::string& e : events) assembler.Add(e);
  EXPECT_FALSE(assembler.error()) << *assembler.error();
  return json::parse(assembler.Finish(model));
}

// A chat stream with logprobs as llama-server (build 11669) sent it: the
// first chunk without a role, the finish in its own chunk, usage and timings
// in a closing chunk without choices.
TEST(StreamAssembler, ChatStreamBecomesTheAnswerLlamaServerGivesWithoutStream) {
  const std::vector<std::string> events = {
      R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"é would"},"logprobs":{"content":[{"id":436,"token":"é would","logprob":-5.97}]}}],"created":1796280193,"id":"chatcmpl-X","model":"tiny","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk"})",
      R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"!"},"logprobs":{"content":[{"id":141,"token":"!","logprob":-6.05}]}}],"created":1796280193,"id":"chatcmpl-X","model":"tiny","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk"})",
      R"({"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1796280193,"id":"chatcmpl-X","model":"tiny","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk"})",
      R"({"choices":[],"created":1796280193,"id":"chatcmpl-X","model":"tiny","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk","usage":{"completion_tokens":3,"prompt_tokens":26,"total_tokens":29},"timings":{"prompt_n":26,"predicted_n":3}})",
      "[DONE]",
  };
  const json expected = json::parse(R"({
    "choices": [{"finish_reason": "length", "index": 0,
                 "message": {"role": "assistant", "content": "é would!"},
                 "logprobs": {"content": [{"id": 436, "token": "é would", "logprob": -5.97},
                                          {"id": 141, "token": "!", "logprob": -6.05}]}}],
    "created": 1796280193, "id": "chatcmpl-X", "model": "Tiny",
    "system_fingerprint": "b11669-Debian", "object": "chat.completion",
    "usage": {"completion_tokens": 3, "prompt_tokens": 26, "total_tokens": 29},
    "timings": {"prompt_n": 26, "predicted_n": 3}})");
  EXPECT_EQ(Assemble("/v1/chat/completions", events, "Tiny"), expected);
}

TEST(StreamAssembler, ChatWithoutLogprobsHasNoLogprobsKey) {
  json out = Assemble("/v1/chat/completions",
                      {R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]})",
                       R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})"});
  EXPECT_FALSE(out["choices"][0].contains("logprobs")) << out;
  EXPECT_EQ(out["choices"][0]["message"]["content"], "hi");
  EXPECT_EQ(out["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(out.contains("usage"));
}

// Text completions: every chunk carries "logprobs": null, and so does the answer.
TEST(StreamAssembler, TextCompletionStream) {
  json out = Assemble(
      "/v1/completions",
      {R"({"choices":[{"text":"Once","index":0,"logprobs":null,"finish_reason":null}],"created":5,"model":"tiny","object":"text_completion","id":"cmpl-1"})",
       R"({"choices":[{"text":" upon","index":0,"logprobs":null,"finish_reason":null}],"created":5,"model":"tiny","object":"text_completion","id":"cmpl-1"})",
       R"({"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"created":5,"model":"tiny","object":"text_completion","id":"cmpl-1","usage":{"completion_tokens":2,"prompt_tokens":7,"total_tokens":9}})",
       "[DONE]"});
  const json expected = json::parse(R"({
    "choices": [{"text": "Once upon", "index": 0, "logprobs": null, "finish_reason": "length"}],
    "created": 5, "model": "tiny", "object": "text_completion", "id": "cmpl-1",
    "usage": {"completion_tokens": 2, "prompt_tokens": 7, "total_tokens": 9}})");
  EXPECT_EQ(out, expected);
}

// Tool calls in OpenAI's streamed form: the first delta of each call names
// it, later ones add to its arguments; the answer has no text (null).
TEST(StreamAssembler, ToolCallsAreJoinedByIndex) {
  json out = Assemble(
      "/v1/chat/completions",
      {R"({"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})",
       R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]})",
       R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]}}]})",
       R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]})",
       R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"});
  const json expected = json::parse(R"({"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
      {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]})");
  EXPECT_EQ(out["choices"][0]["message"], expected);
  EXPECT_EQ(out["choices"][0]["finish_reason"], "tool_calls");
}

TEST(StreamAssembler, ReasoningBesideContent) {
  json out = Assemble("/v1/chat/completions",
                      {R"({"choices":[{"index":0,"delta":{"reasoning_content":"Let me "}}]})",
                       R"({"choices":[{"index":0,"delta":{"reasoning_content":"think."}}]})",
                       R"({"choices":[{"index":0,"delta":{"content":"42"}}]})"});
  EXPECT_EQ(out["choices"][0]["message"]["reasoning_content"], "Let me think.");
  EXPECT_EQ(out["choices"][0]["message"]["content"], "42");
  EXPECT_TRUE(out["choices"][0]["finish_reason"].is_null());
}

TEST(StreamAssembler, SeveralChoicesInterleavedComeOutInIndexOrder) {
  json out = Assemble(
      "/v1/completions",
      {R"({"choices":[{"index":1,"text":"b"}]})", R"({"choices":[{"index":0,"text":"a"}]})",
       R"({"choices":[{"index":1,"text":"B","finish_reason":"stop"}]})",
       R"({"choices":[{"index":0,"text":"A","finish_reason":"length"}]})"});
  ASSERT_EQ(out["choices"].size(), 2u);
  EXPECT_EQ(out["choices"][0]["text"], "aA");
  EXPECT_EQ(out["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(out["choices"][1]["text"], "bB");
  EXPECT_EQ(out["choices"][1]["index"], 1);
}

// llama-server ends a stream it cannot go on with by an error event.
TEST(StreamAssembler, AnErrorEventIsKeptWithItsStatus) {
  StreamAssembler assembler(/*chat=*/true);
  assembler.Add(R"({"choices":[{"index":0,"delta":{"content":"x"}}]})");
  const std::string error =
      R"({"error":{"code":500,"message":"invalid UTF-8 byte","type":"server_error"}})";
  assembler.Add(error);
  ASSERT_TRUE(assembler.error());
  EXPECT_EQ(*assembler.error(), error);
  EXPECT_EQ(assembler.error_status(), 500);

  StreamAssembler other(/*chat=*/false);
  other.Add(R"({"error":{"code":400,"message":"bad","type":"invalid_request_error"}})");
  EXPECT_EQ(other.error_status(), 400);
  StreamAssembler odd("/v1/completions");
  odd.Add(R"({"error":{"code":"weird"}})");
  EXPECT_EQ(odd.error_status(), 500);
}

TEST(StreamAssembler, EmptyUntilAChunkComes) {
  StreamAssembler assembler(/*chat=*/true);
  assembler.Add("[DONE]");
  assembler.Add("not json");
  assembler.Add("");
  EXPECT_TRUE(assembler.empty());
  assembler.Add(R"({"choices":[]})");
  EXPECT_FALSE(assembler.empty());
}

}  // namespace
}  // namespace zest::relay
