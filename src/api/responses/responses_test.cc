#include <gtest/gtest.h>

#include "api/responses/responses_answer.h"
#include "api/responses/responses_request.h"
#include "engines/openai_request_json.h"

namespace zest::api::responses {
namespace {

using nlohmann::json;

// The request as llama-server gets it.
json Body(const engines::ChatRequest& request) { return engines::OpenAiRequestJson(request, {}); }

TEST(ResponsesRequestTest, MapsItemsToolsAndFormat) {
  Result<ResponsesJob> job = ParseResponsesRequest(json::parse(R"({
    "model": "codex-x", "instructions": "be an agent", "stream": true, "store": false,
    "input": [
      {"type": "message", "role": "developer", "content": "rules"},
      {"role": "user", "content": [{"type": "input_text", "text": "look"},
                                   {"type": "input_image", "image_url": "data:image/png;base64,AA"}]},
      {"type": "reasoning", "summary": [{"type": "summary_text", "text": "think"}],
       "encrypted_content": "opaque"},
      {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{\"a\":1}"},
      {"type": "function_call", "call_id": "c2", "name": "shell", "arguments": ""},
      {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    ],
    "tools": [{"type": "function", "name": "shell", "parameters": {"type": "object"}, "strict": true}],
    "tool_choice": {"type": "function", "name": "shell"},
    "text": {"format": {"type": "json_schema", "name": "x", "schema": {"type": "object"}}},
    "max_output_tokens": 50, "reasoning": {"effort": "high"}})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_TRUE(job->request.stream);
  EXPECT_FALSE(job->store);
  const json b = Body(job->request);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 5u) << m.dump();
  EXPECT_EQ(m[0], (json{{"role", "system"}, {"content", "be an agent"}}));
  EXPECT_EQ(m[1], (json{{"role", "system"}, {"content", "rules"}}));
  EXPECT_EQ(m[2]["content"][1]["image_url"]["url"], "data:image/png;base64,AA");
  EXPECT_EQ(m[3]["role"], "assistant");
  EXPECT_EQ(m[3]["reasoning_content"], "think");
  ASSERT_EQ(m[3]["tool_calls"].size(), 2u) << "consecutive calls are one turn";
  EXPECT_EQ(m[3]["tool_calls"][1]["function"]["arguments"], "{}");
  EXPECT_EQ(m[4], (json{{"role", "tool"}, {"tool_call_id", "c1"}, {"content", "ok"}}));
  EXPECT_EQ(job->input_items.size(), 6u);
  for (const json& item : job->input_items) EXPECT_TRUE(item.contains("id"));
  EXPECT_EQ(b["tools"][0]["function"]["name"], "shell");
  EXPECT_EQ(b["tool_choice"]["function"]["name"], "shell");
  EXPECT_EQ(b["response_format"]["json_schema"]["name"], "x");
  EXPECT_EQ(b["max_tokens"], 50);
  EXPECT_EQ(b["reasoning_effort"], "high");
  EXPECT_EQ(job->echo["max_output_tokens"], 50);
}

// Only what the API defines for an item is stored: a member zest never
// reads (padding, in the store review's attack) is dropped, on the item
// and on its content parts, while the defined ones come back as sent.
TEST(ResponsesRequestTest, StoresOnlyTheMembersTheApiDefines) {
  const std::string padding(1000, 'x');
  Result<ResponsesJob> job = ParseResponsesRequest(
      json{{"model", "m"},
           {"input",
            json::array(
                {{{"role", "user"},
                  {"padding", padding},
                  {"content",
                   json::array({{{"type", "input_text"}, {"text", "hi"}, {"padding", padding}}})}},
                 {{"type", "reasoning"},
                  {"id", "rs_1"},
                  {"summary", json::array({{{"type", "summary_text"}, {"text", "t"}}})},
                  {"encrypted_content", "opaque"},
                  {"padding", padding}},
                 {{"type", "function_call"},
                  {"call_id", "c1"},
                  {"name", "f"},
                  {"arguments", "{}"},
                  {"padding", padding}},
                 {{"type", "function_call_output"},
                  {"call_id", "c1"},
                  {"output", "ok"},
                  {"padding", padding}}})}});
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_EQ(job->input_items.size(), 4u);
  EXPECT_EQ(job->input_items.dump().find("padding"), std::string::npos) << job->input_items.dump();
  const json& message = job->input_items[0];
  EXPECT_EQ(message["type"], "message");
  EXPECT_EQ(message["content"], json::array({{{"type", "input_text"}, {"text", "hi"}}}));
  EXPECT_EQ(job->input_items[1],
            (json{{"type", "reasoning"},
                  {"id", "rs_1"},
                  {"summary", json::array({{{"type", "summary_text"}, {"text", "t"}}})},
                  {"encrypted_content", "opaque"}}));
  EXPECT_EQ(job->input_items[2]["name"], "f");
  EXPECT_EQ(job->input_items[3]["output"], "ok");
  EXPECT_FALSE(job->input_items[2].contains("content"));
}

TEST(ResponsesRequestTest, PromptCacheKeyIsTheSession) {
  Result<ResponsesJob> job = ParseResponsesRequest(
      json::parse(R"({"model": "m", "input": "x", "prompt_cache_key": "conv-9"})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->session, "conv-9");
}

TEST(ResponsesRequestTest, RefusesWhatItCannotServeNamingTheField) {
  auto error = [](const char* body) {
    Result<ResponsesJob> job = ParseResponsesRequest(json::parse(body));
    return job.ok() ? std::string("ok") : job.status().message();
  };
  EXPECT_NE(error(R"({"input": "x"})").find("model"), std::string::npos);
  EXPECT_NE(error(R"({"model": "m"})").find("input is required"), std::string::npos);
  EXPECT_EQ(error(R"({"model": "m", "input": "x", "tools": [{"type": "file_search"}]})"), "ok");
  EXPECT_NE(error(R"({"model": "m", "input": "x", "tools": [{"type": "file_search"}],
                      "tool_choice": {"type": "file_search"}})")
                .find("tool_choice forces file_search, a built-in tool"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "input": "x", "tools": [{"type": "teleport"}]})")
                .find("tools[0].type 'teleport' is not a tool type"),
            std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "input": "x", "tools": [{"type": "namespace", "name": "n",
                      "tools": [{"type": "web_search"}]}]})")
                .find("tools[0].tools[0].type must be function or custom"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"model": "m", "input": [{"role": "tool", "content": "x"}]})").find("input[0].role"),
      std::string::npos);
  EXPECT_NE(
      error(R"({"model": "m", "input": "x", "max_output_tokens": 0})").find("max_output_tokens"),
      std::string::npos);
  EXPECT_NE(error(R"({"model": "m", "input": "x", "text": {"format": {"type": "yaml"}}})")
                .find("text.format.type"),
            std::string::npos);
}

TEST(ResponsesRequestTest, APreviousConversationGoesAfterTheInstructions) {
  Result<ResponsesJob> job =
      ParseResponsesRequest(json::parse(R"({"model": "m", "instructions": "sys", "input": "q2"})"));
  ASSERT_TRUE(job.ok());
  PrependConversation(
      {engines::Message::Text("user", "q1"), engines::Message::Text("assistant", "a1")}, *job);
  const json b = Body(job->request);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0]["content"], "sys");
  EXPECT_EQ(m[1]["content"], "q1");
  EXPECT_EQ(m[3]["content"], "q2");
}

// The events of an SSE text, as parsed data.
std::vector<json> Events(const std::string& sse) {
  std::vector<json> out;
  std::size_t at = 0;
  while ((at = sse.find("data: ", at)) != std::string::npos) {
    const std::size_t end = sse.find("\n\n", at);
    out.push_back(json::parse(sse.substr(at + 6, end - at - 6)));
    at = end;
  }
  return out;
}

TEST(ResponsesAnswerTest, StreamsItemsInOrderAndHandsTheResponseToTheStore) {
  json stored;
  ResponsesAnswer answer(json{{"id", "resp_1"}, {"model", "m"}},
                         [&](const json& response) { stored = response; });
  std::string sse;
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})"));
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{"content":"Hi"}}]})"));
  sse += answer.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}}]})"));
  sse += answer.Chunk(json::parse(R"({"choices":[{"delta":{},"finish_reason":"length"}]})"));
  sse += answer.Chunk(
      json::parse(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}})"));
  sse += answer.End();
  std::vector<std::string> types;
  std::vector<json> events = Events(sse);
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i]["sequence_number"], i);
    types.push_back(events[i]["type"]);
  }
  EXPECT_EQ(
      types,
      (std::vector<std::string>{
          "response.created", "response.in_progress", "response.output_item.added",
          "response.reasoning_text.delta", "response.reasoning_text.done",
          "response.output_item.done", "response.output_item.added", "response.content_part.added",
          "response.output_text.delta", "response.output_text.done", "response.content_part.done",
          "response.output_item.done", "response.output_item.added",
          "response.function_call_arguments.delta", "response.function_call_arguments.done",
          "response.output_item.done", "response.incomplete"}));
  const json& final = events.back()["response"];
  EXPECT_EQ(final["status"], "incomplete");
  EXPECT_EQ(final["incomplete_details"]["reason"], "max_output_tokens");
  ASSERT_EQ(final["output"].size(), 3u);
  EXPECT_EQ(final["output"][1]["content"][0]["text"], "Hi");
  EXPECT_EQ(final["output"][2]["call_id"], "c1");
  EXPECT_EQ(final["usage"]["total_tokens"], 7);
  EXPECT_EQ(stored, final);
}

TEST(ResponsesAnswerTest, WholeResponse) {
  ResponsesAnswer answer(json{{"id", "resp_2"}}, nullptr);
  Result<std::string> whole = answer.Whole(json::parse(
      R"({"choices":[{"message":{"content":"done"},"finish_reason":"stop"}],
          "usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}})"));
  ASSERT_TRUE(whole.ok());
  json out = json::parse(*whole);
  EXPECT_EQ(out["status"], "completed");
  EXPECT_EQ(out["output"][0]["content"][0]["text"], "done");
  EXPECT_EQ(out["usage"]["input_tokens_details"]["cached_tokens"], 1);
}

// Codex's tools: a namespace of functions, a custom (freeform) tool and a
// built-in one. The model sees flat functions (the built-in one left out);
// the calls Codex sent back in its input are flattened the same way.
TEST(ResponsesRequestTest, NamespacesAndCustomToolsBecomeFlatFunctions) {
  Result<ResponsesJob> job = ParseResponsesRequest(json::parse(R"({
    "model": "m", "include": ["reasoning.encrypted_content"], "prompt_cache_key": "k",
    "client_metadata": {"a": "b"}, "service_tier": "auto", "store": false,
    "tools": [
      {"type": "function", "name": "shell", "parameters": {"type": "object"}},
      {"type": "namespace", "name": "multi_agent_v1", "description": "agents",
       "tools": [{"type": "function", "name": "spawn_agent", "description": "spawn",
                  "parameters": {"type": "object", "properties": {"task": {"type": "string"}}}}]},
      {"type": "custom", "name": "apply_patch", "description": "patch",
       "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}},
      {"type": "web_search", "external_web_access": false}
    ],
    "input": [
      {"role": "user", "content": "go"},
      {"type": "function_call", "call_id": "c1", "name": "spawn_agent",
       "namespace": "multi_agent_v1", "arguments": "{\"task\":\"t\"}"},
      {"type": "function_call_output", "call_id": "c1", "output": "spawned"},
      {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** patch"},
      {"type": "custom_tool_call_output", "call_id": "c2", "output": "applied"}
    ]})"));
  ASSERT_TRUE(job.ok()) << job.status().message();
  const json b = Body(job->request);
  ASSERT_EQ(b["tools"].size(), 3u) << b["tools"].dump();
  EXPECT_EQ(b["tools"][0]["function"]["name"], "shell");
  EXPECT_EQ(b["tools"][1]["function"]["name"], "multi_agent_v1__spawn_agent");
  EXPECT_EQ(b["tools"][2]["function"]["name"], "apply_patch");
  EXPECT_EQ(b["tools"][2]["function"]["parameters"]["required"], json::array({"input"}));
  EXPECT_NE(b["tools"][2]["function"]["parameters"]["properties"]["input"]["description"]
                .get<std::string>()
                .find("start: /.+/"),
            std::string::npos);
  const json& m = b["messages"];
  ASSERT_EQ(m.size(), 5u) << m.dump();
  EXPECT_EQ(m[1]["tool_calls"][0]["function"]["name"], "multi_agent_v1__spawn_agent");
  EXPECT_EQ(m[2]["content"], "spawned");
  EXPECT_EQ(m[3]["tool_calls"][0]["function"]["arguments"], R"({"input":"*** patch"})");
  EXPECT_EQ(m[4]["tool_call_id"], "c2");
  EXPECT_FALSE(b.contains("include"));
  EXPECT_FALSE(b.contains("prompt_cache_key"));
  const ClientTool spawn = job->tools.Find("multi_agent_v1__spawn_agent");
  EXPECT_EQ(spawn.name, "spawn_agent");
  EXPECT_EQ(spawn.ns, "multi_agent_v1");
  EXPECT_TRUE(job->tools.Find("apply_patch").custom);
  EXPECT_EQ(job->input_items[1]["namespace"], "multi_agent_v1");
  EXPECT_EQ(job->input_items[3]["input"], "*** patch");
}

// The model's calls go back under the names and kinds the client declared:
// a namespaced function as {name, namespace}, a custom tool's call as a
// custom_tool_call carrying its input, streamed and whole.
TEST(ResponsesAnswerTest, CallsComeBackAsTheClientDeclaredThem) {
  ClientTools tools;
  tools.Add({"spawn_agent", "multi_agent_v1", false});
  tools.Add({"apply_patch", "", true});
  ResponsesAnswer streamed(json{{"id", "resp_3"}}, nullptr, tools);
  std::string sse;
  sse += streamed.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"multi_agent_v1__spawn_agent","arguments":"{\"task\":"}}]}}]})"));
  sse += streamed.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"t\"}"}}]}}]})"));
  sse += streamed.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"apply_patch","arguments":"{\"input\":"}}]}}]})"));
  sse += streamed.Chunk(json::parse(
      R"({"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"*** p\"}"}}]}}]})"));
  sse += streamed.End();
  std::vector<json> events = Events(sse);
  const json& final = events.back()["response"];
  ASSERT_EQ(final["output"].size(), 2u) << final.dump();
  EXPECT_EQ(final["output"][0]["type"], "function_call");
  EXPECT_EQ(final["output"][0]["name"], "spawn_agent");
  EXPECT_EQ(final["output"][0]["namespace"], "multi_agent_v1");
  EXPECT_EQ(final["output"][0]["arguments"], R"({"task":"t"})");
  EXPECT_EQ(final["output"][1]["type"], "custom_tool_call");
  EXPECT_EQ(final["output"][1]["name"], "apply_patch");
  EXPECT_EQ(final["output"][1]["input"], "*** p");
  EXPECT_FALSE(final["output"][1].contains("namespace"));
  bool input_done = false;
  for (const json& e : events) {
    if (e["type"] == "response.output_item.added") {
      EXPECT_TRUE(e["item"]["type"] != "function_call" ||
                  e["item"]["namespace"] == "multi_agent_v1");
    }
    if (e["type"] == "response.custom_tool_call_input.done") {
      input_done = true;
      EXPECT_EQ(e["input"], "*** p");
    }
  }
  EXPECT_TRUE(input_done);

  ResponsesAnswer whole(json{{"id", "resp_4"}}, nullptr, tools);
  Result<std::string> text = whole.Whole(json::parse(R"({"choices":[{"message":{"tool_calls":[
      {"id":"c3","type":"function","function":{"name":"multi_agent_v1__spawn_agent","arguments":"{}"}},
      {"id":"c4","type":"function","function":{"name":"apply_patch","arguments":"{\"input\":\"x\"}"}}]},
      "finish_reason":"tool_calls"}]})"));
  ASSERT_TRUE(text.ok());
  const json out = json::parse(*text)["output"];
  EXPECT_EQ(out[0]["namespace"], "multi_agent_v1");
  EXPECT_EQ(out[0]["name"], "spawn_agent");
  EXPECT_EQ(out[1]["type"], "custom_tool_call");
  EXPECT_EQ(out[1]["input"], "x");
}

// With store: false Codex keeps the conversation and asks for
// reasoning.encrypted_content; the reasoning zest returned there comes back
// to the model on the next turn, even when the client sends the blob alone.
// A blob zest did not make (OpenAI's) is dropped.
TEST(ResponsesReasoningTest, EncryptedContentRoundTrips) {
  Result<ResponsesJob> first = ParseResponsesRequest(json::parse(
      R"({"model": "m", "input": "q", "store": false, "include": ["reasoning.encrypted_content"]})"));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->encrypted_reasoning);
  ResponsesAnswer answer(json{{"id", "resp_5"}}, nullptr, {}, first->encrypted_reasoning);
  Result<std::string> whole = answer.Whole(json::parse(
      R"({"choices":[{"message":{"reasoning_content":"think hard","content":"a"},"finish_reason":"stop"}]})"));
  ASSERT_TRUE(whole.ok());
  const json reasoning = json::parse(*whole)["output"][0];
  ASSERT_EQ(reasoning["type"], "reasoning");
  const std::string blob = reasoning["encrypted_content"];
  EXPECT_EQ(ReasoningFromBlob(blob), "think hard");

  auto next_turn = [](const std::string& blob) {
    json input = json::array(
        {{{"role", "user"}, {"content", "q"}},
         {{"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", blob}},
         {{"role", "assistant"}, {"content", "a"}},
         {{"role", "user"}, {"content", "more"}}});
    Result<ResponsesJob> job = ParseResponsesRequest(json{{"model", "m"}, {"input", input}});
    EXPECT_TRUE(job.ok());
    return Body(job->request)["messages"][1];
  };
  EXPECT_EQ(next_turn(blob)["reasoning_content"], "think hard");
  EXPECT_FALSE(next_turn("gAAAAopenai-made").contains("reasoning_content"));
  ResponsesAnswer plain(json{{"id", "resp_6"}}, nullptr);
  whole = plain.Whole(json::parse(
      R"({"choices":[{"message":{"reasoning_content":"r","content":"a"},"finish_reason":"stop"}]})"));
  EXPECT_FALSE(json::parse(*whole)["output"][0].contains("encrypted_content"));
}

}  // namespace
}  // namespace zest::api::responses
