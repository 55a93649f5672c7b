#include "api/model_preset.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

using nlohmann::json;

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
  json body = {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"temperature", 0.9}};
  ApplyPreset(model, body);
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
  json chat = {{"messages",
                {{{"role", "system"}, {"content", "x"}}, {{"role", "user"}, {"content", "hi"}}}}};
  ApplyPreset(model, chat);
  ASSERT_EQ(chat["messages"].size(), 4u);
  EXPECT_EQ(chat["messages"][0]["content"], "x");
  EXPECT_EQ(chat["messages"][1]["content"], "who?");
  models::ModelEntry again = PresetEntry();
  json completion = {{"prompt", "hi"}};
  ApplyPreset(again, completion);
  EXPECT_EQ(completion, (json{{"prompt", "hi"}, {"max_tokens", 3}, {"temperature", 0.2}}));
  models::ModelEntry plain;
  plain.name = "tiny";
  json untouched = {{"prompt", "hi"}};
  ApplyPreset(plain, untouched);
  EXPECT_EQ(untouched, (json{{"prompt", "hi"}}));
  EXPECT_EQ(plain.name, "tiny");
}

}  // namespace
}  // namespace zest::api
