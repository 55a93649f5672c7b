#include "relay/stream_resume.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engines/openai_request_json.h"

namespace zest::relay {
namespace {

using nlohmann::json;

std::string Chunk(const std::string& id, json delta, json finish = nullptr) {
  json c = {
      {"id", id},
      {"object", "chat.completion.chunk"},
      {"created", 1700000000},
      {"model", "m"},
      {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
  return c.dump();
}

using engines::ChatRequest;
using engines::Message;

ChatRequest Request(std::vector<Message> messages) {
  ChatRequest r;
  r.model = "m";
  r.stream = true;
  r.max_tokens = 100;
  r.messages = std::move(messages);
  return r;
}
const ChatRequest kRequest = Request({Message::Text("user", "hi")});

// The request as the engine gets it.
json Asked(const Result<ChatRequest>& request) { return engines::OpenAiRequestJson(*request, {}); }

TEST(StreamResume, TheContinuationCarriesTheTextSentAsAnAssistantPrefill) {
  StreamResume resume;
  EXPECT_FALSE(resume.any_sent());
  resume.Sent(Chunk("first", {{"role", "assistant"}, {"content", nullptr}}));
  resume.Sent(Chunk("first", {{"content", "Hello"}}));
  resume.Sent(Chunk("first", {{"content", ", wor"}}));
  EXPECT_TRUE(resume.any_sent());
  EXPECT_FALSE(resume.Finished());

  auto body = resume.Continuation(kRequest);
  ASSERT_TRUE(body.ok()) << body.status().message();
  json asked = Asked(body);
  ASSERT_EQ(asked["messages"].size(), 2u);
  EXPECT_EQ(asked["messages"][1], json({{"role", "assistant"}, {"content", "Hello, wor"}}));
  EXPECT_EQ(asked["max_tokens"], 98);  // two content chunks went out
  EXPECT_TRUE(asked["stream"]);

  // The fresh engine's stream looks like the rest of the first one.
  EXPECT_FALSE(resume.Continue(Chunk("second", {{"role", "assistant"}, {"content", nullptr}})));
  json next = json::parse(*resume.Continue(Chunk("second", {{"content", "ld"}})));
  EXPECT_EQ(next["id"], "first");
  EXPECT_EQ(next["choices"][0]["delta"], json({{"content", "ld"}}));
  json last = json::parse(*resume.Continue(Chunk("second", json::object(), "stop")));
  EXPECT_EQ(last["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(*resume.Continue("[DONE]"), "[DONE]");
}

TEST(StreamResume, UsageCountsTheWholeAnswer) {
  StreamResume resume;
  resume.Sent(Chunk("a", {{"content", "x"}}));
  resume.Sent(Chunk("a", {{"content", "y"}}));
  resume.Sent(Chunk("a", {{"content", "z"}}));
  ASSERT_TRUE(resume.Continuation(kRequest).ok());
  json usage = {{"id", "b"},
                {"choices", json::array()},
                {"usage", {{"prompt_tokens", 13}, {"completion_tokens", 4}, {"total_tokens", 17}}}};
  json out = json::parse(*resume.Continue(usage.dump()));
  EXPECT_EQ(out["usage"]["prompt_tokens"], 10);
  EXPECT_EQ(out["usage"]["completion_tokens"], 7);
  EXPECT_EQ(out["usage"]["total_tokens"], 17);
}

// Found by the chaos test (make soak): an engine killed after the answer's
// last token but before its end. The client has the whole answer; the
// continuation (one token, the least an engine makes) brings only the end:
// "length", and usage of exactly the limit, not one over it.
TEST(StreamResume, AnEngineDeadAfterTheLastTokenEndsTheAnswerAtItsLimit) {
  StreamResume resume;
  ChatRequest three = kRequest;
  three.max_tokens = 3;
  for (const char* piece : {"x", "y", "z"}) resume.Sent(Chunk("a", {{"content", piece}}));
  auto body = resume.Continuation(three);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(Asked(body)["max_tokens"], 1);
  EXPECT_FALSE(resume.Continue(Chunk("b", {{"role", "assistant"}, {"content", nullptr}})));
  EXPECT_FALSE(resume.Continue(Chunk("b", {{"content", "!"}}))) << "past the limit";
  json end = json::parse(*resume.Continue(Chunk("b", json::object(), "stop")));
  EXPECT_EQ(end["choices"][0]["finish_reason"], "length");
  json usage = {{"id", "b"},
                {"choices", json::array()},
                {"usage", {{"prompt_tokens", 12}, {"completion_tokens", 1}, {"total_tokens", 13}}}};
  json out = json::parse(*resume.Continue(usage.dump()));
  EXPECT_EQ(out["usage"]["completion_tokens"], 3);
  EXPECT_EQ(out["usage"]["prompt_tokens"], 9);
  EXPECT_EQ(out["usage"]["total_tokens"], 12);
}

TEST(StreamResume, ASecondBreakGoesOnFromTheWholeTextAndTheClientsOwnPrefillGrows) {
  StreamResume resume;
  const ChatRequest prefilled =
      Request({Message::Text("user", "hi"), Message::Text("assistant", "Sure: ")});
  resume.Sent(Chunk("a", {{"content", "one "}}));
  ASSERT_TRUE(resume.Continuation(prefilled).ok());
  EXPECT_FALSE(resume.has_new());
  resume.Sent(*resume.Continue(Chunk("b", {{"content", "two "}})));
  EXPECT_TRUE(resume.has_new());
  auto body = resume.Continuation(prefilled);
  ASSERT_TRUE(body.ok());
  json asked = Asked(body);
  ASSERT_EQ(asked["messages"].size(), 2u);
  EXPECT_EQ(asked["messages"][1]["content"], "Sure: one two ");
}

TEST(StreamResume, ToolCallsReasoningAndSeveralChoicesAreNotResumed) {
  StreamResume tool;
  tool.Sent(Chunk("a", {{"tool_calls", json::array({{{"index", 0}, {"id", "c"}}})}}));
  EXPECT_EQ(tool.Continuation(kRequest).status().code(), ErrorCode::kUnsupported);

  StreamResume thinking;
  thinking.Sent(Chunk("a", {{"reasoning_content", "hmm"}}));
  EXPECT_FALSE(thinking.Continuation(kRequest).ok());

  StreamResume several;
  several.Sent(Chunk("a", {{"content", "x"}}));
  ChatRequest two = kRequest;
  two.extra = {{"n", 2}};
  EXPECT_FALSE(several.Continuation(two).ok());

  StreamResume completion;  // a text completion has no messages to continue
  completion.Sent(Chunk("a", {{"content", "x"}}));
  ChatRequest text;
  text.kind = engines::Capability::kCompletions;
  text.prompt = "p";
  EXPECT_FALSE(completion.Continuation(text).ok());
}

TEST(StreamResume, AFinishedAnswerIsNotResumed) {
  StreamResume resume;
  resume.Sent(Chunk("a", {{"content", "x"}}));
  resume.Sent(Chunk("a", json::object(), "stop"));
  EXPECT_TRUE(resume.Finished());
}

}  // namespace
}  // namespace zest::relay
