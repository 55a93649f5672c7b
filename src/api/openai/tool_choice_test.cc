#include "api/openai/tool_choice.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace zest::api::openai {
namespace {

using json = nlohmann::json;

json Tool(const std::string& name) {
  return {{"type", "function"}, {"function", {{"name", name}, {"parameters", json::object()}}}};
}

TEST(ToolChoiceTest, ANamedFunctionBecomesRequiredWithOnlyThatTool) {
  json body = {{"tools", {Tool("get_weather"), Tool("shell")}},
               {"tool_choice", {{"type", "function"}, {"function", {{"name", "shell"}}}}}};
  EXPECT_TRUE(NamesATool(body));
  ASSERT_TRUE(ForceNamedTool(body).ok());
  EXPECT_EQ(body["tool_choice"], "required");
  EXPECT_EQ(body["tools"], json::array({Tool("shell")}));
}

TEST(ToolChoiceTest, OtherChoicesAreLeftAlone) {
  for (const json& choice : {json("auto"), json("none"), json("required")}) {
    json body = {{"tools", {Tool("a"), Tool("b")}}, {"tool_choice", choice}};
    const json before = body;
    EXPECT_FALSE(NamesATool(body));
    ASSERT_TRUE(ForceNamedTool(body).ok());
    EXPECT_EQ(body, before);
  }
  json none = {{"messages", json::array()}};
  ASSERT_TRUE(ForceNamedTool(none).ok());
  EXPECT_FALSE(none.contains("tool_choice"));
}

TEST(ToolChoiceTest, AnUnknownOrMalformedChoiceIsRefused) {
  json unknown = {{"tools", {Tool("a")}},
                  {"tool_choice", {{"type", "function"}, {"function", {{"name", "b"}}}}}};
  Status st = ForceNamedTool(unknown);
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.message().find("'b', which is not in tools"), std::string::npos) << st.message();
  for (const json& choice : {json{{"type", "function"}}, json{{"type", "tool"}, {"name", "a"}},
                             json{{"type", "function"}, {"function", {{"name", 3}}}}}) {
    json body = {{"tools", {Tool("a")}}, {"tool_choice", choice}};
    EXPECT_EQ(ForceNamedTool(body).code(), ErrorCode::kInvalidArgument) << choice;
  }
  json no_tools = {{"tool_choice", {{"type", "function"}, {"function", {{"name", "a"}}}}}};
  EXPECT_EQ(ForceNamedTool(no_tools).code(), ErrorCode::kInvalidArgument);
}

TEST(ToolChoiceTest, WorksOnRequestText) {
  Result<std::string> forced =
      WithNamedToolForced(R"({"model":"m","tools":[{"type":"function","function":{"name":"a"}},)"
                          R"({"type":"function","function":{"name":"b"}}],)"
                          R"("tool_choice":{"type":"function","function":{"name":"a"}}})");
  ASSERT_TRUE(forced.ok()) << forced.status().message();
  const json doc = json::parse(*forced);
  EXPECT_EQ(doc["tool_choice"], "required");
  ASSERT_EQ(doc["tools"].size(), 1u);
  EXPECT_EQ(doc["tools"][0]["function"]["name"], "a");
  EXPECT_EQ(doc["model"], "m");
  EXPECT_FALSE(WithNamedToolForced("[1]").ok());
}

}  // namespace
}  // namespace zest::api::openai
