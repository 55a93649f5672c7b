#include "api/model_preset.h"

#include <gtest/gtest.h>

#include "engines/openai_request_json.h"

namespace zest::api {
namespace {

using engines::ChatRequest;
using engines::Message;
using nlohmann::json;

// The request as the engine gets it.
json Body(const ChatRequest& request) { return engines::OpenAiRequestJson(request, {}); }

models::ModelEntry PresetEntry() {
  models::ModelEntry entry;
  entry.name = "mario";
  entry.path = "/models/tiny.gguf";
  entry.preset = models::ModelPreset{
      .from = "tiny",
      .system = "You are Mario.",
      .parameters = {{"num_predict", 3}, {"temperature", 0.2}, {"num_ctx", 4096}},
      .messages = json::array({{{"role", "user"}, {"content", "who?"}},
                               {{"role", "assistant"}, {"content", "Mario!"}}})};
  return entry;
}

TEST(ModelPresetTest, AddsTheSystemPromptMessagesAndDefaultsAndRunsOnTheBase) {
  models::ModelEntry model = PresetEntry();
  ChatRequest request;
  request.messages = {Message::Text("user", "hi")};
  request.sampling.temperature = 0.9;
  ApplyPreset(model, request);
  const json body = Body(request);
  EXPECT_EQ(model.name, "tiny");
  EXPECT_FALSE(model.preset.has_value());
  EXPECT_EQ(body["max_tokens"], 3);
  EXPECT_EQ(body["temperature"], 0.9);  // the request's own wins
  ASSERT_EQ(body["messages"].size(), 4u) << body.dump();
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "You are Mario."}}));
  EXPECT_EQ(body["messages"][1]["content"], "who?");
  EXPECT_EQ(body["messages"][3]["content"], "hi");
}

TEST(ModelPresetTest, TheRequestsSystemMessageWinsAndCompletionsGetDefaultsOnly) {
  models::ModelEntry model = PresetEntry();
  ChatRequest chat;
  chat.messages = {Message::Text("system", "x"), Message::Text("user", "hi")};
  ApplyPreset(model, chat);
  ASSERT_EQ(chat.messages.size(), 4u);
  EXPECT_EQ(chat.messages[0].text, "x");
  EXPECT_EQ(chat.messages[1].text, "who?");
  models::ModelEntry again = PresetEntry();
  ChatRequest completion;
  completion.kind = engines::Capability::kCompletions;
  completion.prompt = "hi";
  ApplyPreset(again, completion);
  EXPECT_TRUE(completion.messages.empty());
  EXPECT_EQ(completion.max_tokens, 3);
  EXPECT_EQ(completion.sampling.temperature, 0.2);
  models::ModelEntry plain;
  plain.name = "tiny";
  ChatRequest untouched;
  untouched.kind = engines::Capability::kCompletions;
  untouched.prompt = "hi";
  ApplyPreset(plain, untouched);
  EXPECT_FALSE(untouched.max_tokens.has_value());
  EXPECT_FALSE(untouched.sampling.temperature.has_value());
  EXPECT_EQ(plain.name, "tiny");
}

}  // namespace
}  // namespace zest::api
