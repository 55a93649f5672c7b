#include "api/request/tool_choice.h"

#include <gtest/gtest.h>

namespace zest::api {
namespace {

using engines::ChatRequest;
using engines::ToolChoice;

ChatRequest WithTools(std::initializer_list<const char*> names) {
  ChatRequest r;
  for (const char* name : names) r.tools.push_back({.name = name});
  return r;
}

TEST(ToolChoiceTest, ANamedFunctionBecomesRequiredWithOnlyThatTool) {
  ChatRequest r = WithTools({"get_weather", "shell", "read"});
  r.tool_choice = ToolChoice{ToolChoice::Mode::kFunction, "shell"};
  ASSERT_TRUE(ForceNamedTool(r).ok());
  EXPECT_EQ(r.tool_choice->mode, ToolChoice::Mode::kRequired);
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0].name, "shell");
}

TEST(ToolChoiceTest, OtherChoicesAreLeftAlone) {
  for (ToolChoice::Mode mode :
       {ToolChoice::Mode::kAuto, ToolChoice::Mode::kNone, ToolChoice::Mode::kRequired}) {
    ChatRequest r = WithTools({"a", "b"});
    r.tool_choice = ToolChoice{mode, ""};
    ASSERT_TRUE(ForceNamedTool(r).ok());
    EXPECT_EQ(r.tool_choice->mode, mode);
    EXPECT_EQ(r.tools.size(), 2u);
  }
  ChatRequest none = WithTools({"a"});
  ASSERT_TRUE(ForceNamedTool(none).ok());
  EXPECT_FALSE(none.tool_choice.has_value());
}

TEST(ToolChoiceTest, AFunctionNotInToolsIsRefused) {
  ChatRequest unknown = WithTools({"a"});
  unknown.tool_choice = ToolChoice{ToolChoice::Mode::kFunction, "b"};
  Status st = ForceNamedTool(unknown);
  EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(st.message().find("'b', which is not in tools"), std::string::npos) << st.message();
  ChatRequest no_tools;
  no_tools.tool_choice = ToolChoice{ToolChoice::Mode::kFunction, "a"};
  EXPECT_EQ(ForceNamedTool(no_tools).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::api
