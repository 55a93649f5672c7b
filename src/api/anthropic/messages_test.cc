#include <gtest/gtest.h>

#include "api/anthropic/messages_answer.h"
#include "api/anthropic/messages_request.h"
#include "engines/openai_request_json.h"

namespace zest::api::anthropic {
namespace {

using nlohmann::json;

// The request as llama-server gets it.
json Body(const engines::ChatRequest& request) { return engines::OpenAiRequestJson(request, {}); }

TEST(MessagesRequestTest, MapsSystemBlocksToolUseAndResults) {
  Result<engines::ChatRequest> job = ParseMessagesRequest(json::parse(R"({
    "model": "claude-x", "max_tokens": 4096, "stream": true,
    "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    "messages": [
      {"role": "user", "content": [
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}}]},
      {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hm", "signature": "s"},
        {"type": "redacted_thinking", "data": "x"},
        {"type": "text", "text": "calling"},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}]},
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "42", "is_error": true},
        {"type": "text", "text": "go on"}]}
    ],
    "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}}],
    "tool_choice": {"type": "tool", "name": "f", "disable_parallel_tool_use": true},
    "stop_sequences": ["END"], "temperature": 0.5, "top_k": 3,
    "thinking": {"type": "enabled", "budget_tokens": 2000}})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_TRUE(job->stream);
  const json b = Body(*job);
  EXPECT_EQ(b["max_tokens"], 4096);
  EXPECT_EQ(b["stream_options"]["include_usage"], true);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 5u) << m.dump();
  EXPECT_EQ(m[0], (json{{"role", "system"}, {"content", "a\nb"}}));
  EXPECT_EQ(m[1]["content"][1]["image_url"]["url"], "data:image/png;base64,AAA");
  EXPECT_EQ(m[2]["content"], "calling");
  EXPECT_EQ(m[2]["reasoning_content"], "hm");
  EXPECT_EQ(m[2]["tool_calls"][0]["id"], "toolu_1");
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["arguments"], R"({"a":1})");
  EXPECT_EQ(m[3], (json{{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "Error: 42"}}));
  EXPECT_EQ(m[4], (json{{"role", "user"}, {"content", "go on"}}));
  EXPECT_EQ(b["tools"][0]["function"]["parameters"], (json{{"type", "object"}}));
  EXPECT_EQ(b["tool_choice"]["function"]["name"], "f");
  EXPECT_EQ(b["parallel_tool_calls"], false);
  EXPECT_EQ(b["stop"], json::array({"END"}));
  EXPECT_EQ(b["chat_template_kwargs"]["enable_thinking"], true);
  EXPECT_EQ(b["reasoning_budget_tokens"], 2000);
}

// What Claude Code sends besides: system messages among the turns (those
// later than the first turn start the next user turn, so the prompt's start
// stays what the engine's cache holds), cache_control on any block, a tool
// result with an image and nested text, the server's web search tool (left
// out of the prompt), and fields a local model has no use for.
TEST(MessagesRequestTest, TakesWhatClaudeCodeSends) {
  Result<engines::ChatRequest> job = ParseMessagesRequest(json::parse(R"({
    "model": "m", "max_tokens": 100, "metadata": {"user_id": "u"},
    "context_management": {"edits": []}, "output_config": {"effort": "low"},
    "system": [{"type": "text", "text": "you are", "cache_control": {"type": "ephemeral"}}],
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "hi",
                                    "cache_control": {"type": "ephemeral", "ttl": "1h"}}]},
      {"role": "system", "content": "reminder"},
      {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "anything"},
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a"}}]},
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
          {"type": "text", "text": "file:"},
          {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}}]}]},
      {"role": "system", "content": [{"type": "text", "text": "later"}]}
    ],
    "tools": [{"name": "Read", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}},
              {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}],
    "thinking": {"type": "adaptive", "display": "summarized"}})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  const json b = Body(*job);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 6u) << m.dump();
  EXPECT_EQ(m[0], (json{{"role", "system"}, {"content", "you are"}}));
  EXPECT_EQ(m[1]["content"], "hi");
  EXPECT_EQ(m[2]["tool_calls"][0]["function"]["name"], "Read");
  EXPECT_EQ(m[3], (json{{"role", "tool"}, {"tool_call_id", "toolu_1"}, {"content", "file:"}}));
  // The reminder starts the next user turn (here the one with the tool's image).
  EXPECT_EQ(m[4]["role"], "user");
  EXPECT_EQ(m[4]["content"][0], (json{{"type", "text"}, {"text", "reminder\n\n"}}));
  EXPECT_EQ(m[4]["content"][1]["image_url"]["url"], "data:image/png;base64,AAA");
  // The last system message, with no user turn after it, is one of its own.
  EXPECT_EQ(m[5], (json{{"role", "user"}, {"content", "later"}}));
  ASSERT_EQ(b["tools"].size(), 1u) << "the server's web search is left out";
  EXPECT_EQ(b["tools"][0]["function"]["name"], "Read");
  for (const char* field : {"metadata", "context_management", "output_config", "cache_control"}) {
    EXPECT_EQ(b.dump().find(field), std::string::npos) << field;
  }
  EXPECT_EQ(SessionOf(json::parse(R"({"metadata": {"user_id": "u"}})")), "u")
      << "metadata.user_id names the session";
  EXPECT_EQ(SessionOf(json::parse(R"({"metadata": {"user_id": 7}})")), "");
}

// A system message that clears at the next user message is gone once one
// follows; tools added and removed mid-conversation change the tools.
TEST(MessagesRequestTest, SystemTurnsClearAndChangeTheTools) {
  Result<engines::ChatRequest> job = ParseMessagesRequest(json::parse(R"({
    "model": "m", "max_tokens": 100,
    "tools": [{"name": "Read", "input_schema": {"type": "object"}},
              {"name": "Bash", "input_schema": {"type": "object"}}],
    "messages": [
      {"role": "system", "content": "before everything"},
      {"role": "user", "content": "one"},
      {"role": "system", "content": "only this turn", "clear_at": "next_user_message"},
      {"role": "assistant", "content": "ok"},
      {"role": "system", "content": [
        {"type": "tool_addition", "tool": {"type": "tool_definition",
         "definition": {"name": "Grep", "input_schema": {"type": "object"}}}},
        {"type": "tool_removal", "tool": {"type": "tool_reference", "name": "Bash"}}]},
      {"role": "user", "content": "two"}
    ]})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  const json b = Body(*job);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 4u) << m.dump();
  EXPECT_EQ(m[0], (json{{"role", "system"}, {"content", "before everything"}}));
  EXPECT_EQ(m[3], (json{{"role", "user"}, {"content", "two"}})) << "cleared: a user turn followed";
  std::vector<std::string> names;
  for (const json& tool : b["tools"]) names.push_back(tool["function"]["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Read", "Grep"}));
}

TEST(MessagesRequestTest, RefusesWhatAnthropicRefusesNamingTheField) {
  auto error = [](const char* body, bool count_only = false) {
    Result<engines::ChatRequest> job = ParseMessagesRequest(json::parse(body), count_only);
    return job.ok() ? std::string("ok") : job.status().message();
  };
  const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
  EXPECT_NE(error(("{\"model\": \"m\", " + user + "}").c_str()).find("max_tokens"),
            std::string::npos);
  EXPECT_EQ(error(("{\"model\": \"m\", " + user + "}").c_str(), true), "ok") << "count_tokens";
  EXPECT_NE(
      error(R"({"model": "m", "max_tokens": 1, "messages": [{"role": "tool", "content": ""}]})")
          .find("messages[0].role"),
      std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "max_tokens": 1, "messages": [],
                      "tool_choice": {"type": "maybe"}})")
                .find("tool_choice.type"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"model": "m", "max_tokens": 1, "messages": [],
                      "tools": [{"type": "bash_20250124", "name": "bash"}]})")
          .find("tools[0].type: 'bash_20250124' is a tool Anthropic defines without a schema"),
      std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "max_tokens": 1, "messages": [],
                      "container": "container_1"})")
                .find("container: runs on Anthropic's servers"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "max_tokens": 1, "messages": [],
                      "mcp_servers": [{"type": "url", "url": "https://x", "name": "x"}]})")
                .find("mcp_servers: runs on Anthropic's servers"),
            std::string::npos);
  EXPECT_EQ(error(R"({"model": "m", "max_tokens": 1, "messages": [], "mcp_servers": []})"), "ok");
  EXPECT_NE(error(R"({"model": "m", "max_tokens": 1, "messages": [],
                      "tools": [{"type": "web_search_20250305", "name": "web_search"}],
                      "tool_choice": {"type": "tool", "name": "web_search"}})")
                .find("tool_choice.name: 'web_search' is a tool Anthropic's servers run"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "max_tokens": 1, "messages": [{"role": "user",
                      "content": [{"type": "tool_use", "id": "x", "name": "f"}]}]})")
                .find("'tool_use' blocks are not supported in user messages"),
            std::string::npos);
  // A thinking budget as Anthropic checks it: at least 1024, below max_tokens.
  auto thinking = [&](int max_tokens, const char* thinking) {
    return error(("{\"model\": \"m\", \"max_tokens\": " + std::to_string(max_tokens) + ", " + user +
                  ", \"thinking\": " + thinking + "}")
                     .c_str());
  };
  EXPECT_EQ(thinking(4096, R"({"type": "enabled", "budget_tokens": 1024})"), "ok");
  EXPECT_NE(thinking(4096, R"({"type": "enabled", "budget_tokens": 1023})").find("1024"),
            std::string::npos);
  EXPECT_NE(thinking(2000, R"({"type": "enabled", "budget_tokens": 2000})")
                .find("max_tokens must be greater than thinking.budget_tokens"),
            std::string::npos);
  EXPECT_NE(thinking(4096, R"({"type": "enabled"})").find("budget_tokens"), std::string::npos);
  EXPECT_EQ(thinking(100, R"({"type": "adaptive"})"), "ok");
}

// The events of an SSE text, as (event name, data) pairs.
std::vector<std::pair<std::string, json>> Events(const std::string& sse) {
  std::vector<std::pair<std::string, json>> out;
  std::size_t at = 0;
  while ((at = sse.find("event: ", at)) != std::string::npos) {
    const std::size_t name_end = sse.find('\n', at);
    const std::size_t data_end = sse.find("\n\n", name_end);
    out.emplace_back(sse.substr(at + 7, name_end - at - 7),
                     json::parse(sse.substr(name_end + 7, data_end - name_end - 7)));
    at = data_end;
  }
  return out;
}

TEST(MessagesAnswerTest, StreamsThinkingTextAndToolUseBlocks) {
  MessagesAnswer answer("claude-x", "msg_1");
  std::string sse;
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{"role":"assistant"}}]})"));
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})"));
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{"content":"Hi"}}]})"));
  sse += answer.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}}]})"));
  sse += answer.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]})"));
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})"));
  sse += answer.Chunk(json::parse(
      R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":2}}})"));
  sse += answer.End();
  auto events = Events(sse);
  std::vector<std::string> names;
  for (const auto& [name, data] : events) {
    EXPECT_EQ(data["type"], name);
    names.push_back(name + (data.contains("delta") && data["delta"].contains("type")
                                ? ":" + data["delta"]["type"].get<std::string>()
                                : ""));
  }
  EXPECT_EQ(
      names,
      (std::vector<std::string>{
          "message_start", "ping", "content_block_start", "content_block_delta:thinking_delta",
          "content_block_delta:signature_delta", "content_block_stop", "content_block_start",
          "content_block_delta:text_delta", "content_block_stop", "content_block_start",
          "content_block_delta:input_json_delta", "content_block_delta:input_json_delta",
          "content_block_stop", "message_delta", "message_stop"}));
  EXPECT_EQ(events[0].second["message"]["model"], "claude-x");
  EXPECT_EQ(events[9].second["content_block"]["type"], "tool_use");
  EXPECT_EQ(events[9].second["content_block"]["id"], "toolu_c1");
  EXPECT_EQ(events[9].second["index"], 2);
  const json& delta = events[13].second;
  EXPECT_EQ(delta["delta"]["stop_reason"], "tool_use");
  EXPECT_EQ(delta["usage"]["input_tokens"], 7) << "only what was not read from the cache";
  EXPECT_EQ(delta["usage"]["output_tokens"], 4);
  EXPECT_EQ(delta["usage"]["cache_read_input_tokens"], 2);
  auto error = Events(answer.StreamError(EngineFailed("gone")));
  ASSERT_EQ(error.size(), 1u);
  EXPECT_EQ(error[0].second["error"]["type"], "api_error");
}

TEST(MessagesAnswerTest, WholeMessageAndAnEmptyStream) {
  MessagesAnswer answer("m", "msg_2");
  Result<std::string> whole = answer.Whole(json::parse(R"({
    "choices": [{"message": {"content": null, "tool_calls": [
      {"id": "c", "function": {"name": "f", "arguments": "{\"x\":2}"}}]},
      "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 5, "completion_tokens": 7}})"));
  ASSERT_TRUE(whole.ok());
  json out = json::parse(*whole);
  EXPECT_EQ(out["content"],
            json::parse(R"([{"type":"tool_use","id":"toolu_c","name":"f","input":{"x":2}}])"));
  EXPECT_EQ(out["stop_reason"], "tool_use");
  EXPECT_EQ(out["usage"]["output_tokens"], 7);
  EXPECT_EQ(StopReason("length"), "max_tokens");
  EXPECT_STREQ(ErrorType(429), "rate_limit_error");
  EXPECT_STREQ(ErrorType(503), "overloaded_error");
  MessagesAnswer empty("m", "msg_3");
  auto events = Events(empty.End());
  ASSERT_EQ(events.size(), 4u) << "message_start, ping, message_delta, message_stop";
  EXPECT_EQ(events[2].second["delta"]["stop_reason"], "end_turn");
}

}  // namespace
}  // namespace zest::api::anthropic
