// What `zest launch` sets for each agent: the base URL in the agent's own
// variable or flag, the key, the model for every role, the context window;
// the key never printed. A real turn of each agent launched this way runs
// in tests/agents/zest_launch.test.mjs.
#include "cli/agent_launch.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

namespace zest::cli {
namespace {

const AgentTarget kTarget{.base_url = "http://127.0.0.1:9378",
                          .key = "zk-secret",
                          .model = "coder",
                          .context = 65536,
                          .home = "/home/ada"};

std::map<std::string, std::string> EnvOf(const LaunchPlan& plan) {
  return {plan.env.begin(), plan.env.end()};
}

TEST(AgentLaunch, ClaudeGetsTheMessagesApiAndOneModelForEveryRole) {
  Result<LaunchPlan> plan = PlanAgentLaunch("claude", kTarget, {"-p", "hi"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->program, "claude");
  std::map<std::string, std::string> env = EnvOf(*plan);
  EXPECT_EQ(env["ANTHROPIC_BASE_URL"], "http://127.0.0.1:9378");
  EXPECT_EQ(env["ANTHROPIC_AUTH_TOKEN"], "zk-secret");
  for (const char* role :
       {"ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
        "ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL"}) {
    EXPECT_EQ(env[role], "coder") << role;
  }
  EXPECT_EQ(env["CLAUDE_CODE_MAX_CONTEXT_TOKENS"], "65536");
  EXPECT_EQ(plan->args, (std::vector<std::string>{"-p", "hi"}));
}

TEST(AgentLaunch, QwenAndOpencodeGetTheChatApi) {
  Result<LaunchPlan> qwen = PlanAgentLaunch("qwen", kTarget, {});
  ASSERT_TRUE(qwen.ok());
  EXPECT_EQ(EnvOf(*qwen)["OPENAI_BASE_URL"], "http://127.0.0.1:9378/v1");
  EXPECT_EQ(EnvOf(*qwen)["OPENAI_MODEL"], "coder");
  EXPECT_EQ(qwen->args, (std::vector<std::string>{"--auth-type", "openai"}));

  Result<LaunchPlan> opencode = PlanAgentLaunch("opencode", kTarget, {"run", "hi"});
  ASSERT_TRUE(opencode.ok());
  nlohmann::json config = nlohmann::json::parse(EnvOf(*opencode)["OPENCODE_CONFIG_CONTENT"]);
  EXPECT_EQ(config["model"], "zest/coder");
  EXPECT_EQ(config["provider"]["zest"]["options"]["baseURL"], "http://127.0.0.1:9378/v1");
  EXPECT_EQ(config["provider"]["zest"]["options"]["apiKey"], "zk-secret");
  EXPECT_EQ(config["provider"]["zest"]["models"]["coder"]["limit"]["context"], 65536);
}

TEST(AgentLaunch, CodexGetsAProviderOnTheResponsesApiAsOverrides) {
  Result<LaunchPlan> plan = PlanAgentLaunch("codex", kTarget, {"exec", "hi"});
  ASSERT_TRUE(plan.ok());
  const std::vector<std::string>& a = plan->args;
  auto has = [&a](const std::string& setting) {
    for (size_t i = 0; i + 1 < a.size(); ++i) {
      if (a[i] == "-c" && a[i + 1] == setting) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(R"(model="coder")"));
  EXPECT_TRUE(has(R"(model_provider="zest")"));
  EXPECT_TRUE(has(R"(model_providers.zest.base_url="http://127.0.0.1:9378/v1")"));
  EXPECT_TRUE(has(R"(model_providers.zest.wire_api="responses")"));
  EXPECT_TRUE(has("model_context_window=65536"));
  EXPECT_EQ(EnvOf(*plan)["ZEST_API_KEY"], "zk-secret");
  EXPECT_EQ(a[a.size() - 2], "exec");  // the user's arguments last
}

TEST(AgentLaunch, ContinueGetsAConfigFileOfItsOwn) {
  Result<LaunchPlan> plan = PlanAgentLaunch("continue", kTarget, {"-p", "hi"});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->program, "cn");
  EXPECT_EQ(plan->config_file, "/home/ada/.continue/zest-launch.yaml");
  EXPECT_NE(plan->config_text.find("apiBase: \"http://127.0.0.1:9378/v1\""), std::string::npos);
  EXPECT_NE(plan->config_text.find("contextLength: 65536"), std::string::npos);
  EXPECT_EQ(plan->args, (std::vector<std::string>{"--config", plan->config_file, "-p", "hi"}));
}

TEST(AgentLaunch, TheKeyIsNeverPrintedAndUnknownAgentsAreNamed) {
  for (std::string_view agent : LaunchableAgents()) {
    Result<LaunchPlan> plan = PlanAgentLaunch(agent, kTarget, {});
    ASSERT_TRUE(plan.ok()) << agent;
    const std::string shown = DescribeLaunch(*plan);
    EXPECT_EQ(shown.find("zk-secret"), std::string::npos) << agent << ": " << shown;
    EXPECT_FALSE(shown.empty()) << agent;
    EXPECT_TRUE(plan->install.starts_with("npm install -g ")) << agent;
  }
  Result<LaunchPlan> other = PlanAgentLaunch("cursor", kTarget, {});
  EXPECT_EQ(other.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("claude, codex, opencode, qwen, continue"),
            std::string::npos);
}

}  // namespace
}  // namespace zest::cli
