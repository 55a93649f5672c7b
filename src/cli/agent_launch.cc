#include "cli/agent_launch.h"

#include <nlohmann/json.hpp>

namespace zest::cli {
namespace {

LaunchPlan Plan(std::string program, std::string install) {
  LaunchPlan plan;
  plan.program = std::move(program);
  plan.install = std::move(install);
  return plan;
}

// Claude Code: Anthropic's Messages API at ANTHROPIC_BASE_URL; every model
// role it has (its side calls name Claude models otherwise) is this one.
LaunchPlan Claude(const AgentTarget& t) {
  LaunchPlan p = Plan("claude", "npm install -g @anthropic-ai/claude-code");
  p.env = {{"ANTHROPIC_BASE_URL", t.base_url},
           {"ANTHROPIC_AUTH_TOKEN", t.key},
           {"ANTHROPIC_MODEL", t.model},
           {"ANTHROPIC_DEFAULT_HAIKU_MODEL", t.model},
           {"ANTHROPIC_DEFAULT_SONNET_MODEL", t.model},
           {"ANTHROPIC_DEFAULT_OPUS_MODEL", t.model},
           {"CLAUDE_CODE_SUBAGENT_MODEL", t.model},
           {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"}};
  if (t.context > 0)
    p.env.emplace_back("CLAUDE_CODE_MAX_CONTEXT_TOKENS", std::to_string(t.context));
  return p;
}

// Qwen Code: OpenAI's chat API, chosen with --auth-type openai.
LaunchPlan Qwen(const AgentTarget& t) {
  LaunchPlan p = Plan("qwen", "npm install -g @qwen-code/qwen-code");
  p.args = {"--auth-type", "openai"};
  p.env = {{"OPENAI_BASE_URL", t.base_url + "/v1"},
           {"OPENAI_API_KEY", t.key},
           {"OPENAI_MODEL", t.model}};
  return p;
}

// Codex CLI: a custom model provider on the Responses API, given as -c
// overrides of its config.toml (nothing written to ~/.codex).
LaunchPlan Codex(const AgentTarget& t) {
  LaunchPlan p = Plan("codex", "npm install -g @openai/codex");
  auto quoted = [](const std::string& s) { return nlohmann::json(s).dump(); };  // a TOML string
  for (const std::string& setting :
       {"model=" + quoted(t.model), std::string("model_provider=\"zest\""),
        std::string("model_providers.zest.name=\"zest\""),
        "model_providers.zest.base_url=" + quoted(t.base_url + "/v1"),
        std::string("model_providers.zest.env_key=\"ZEST_API_KEY\""),
        std::string("model_providers.zest.wire_api=\"responses\"")}) {
    p.args.insert(p.args.end(), {"-c", setting});
  }
  if (t.context > 0)
    p.args.insert(p.args.end(), {"-c", "model_context_window=" + std::to_string(t.context)});
  p.env = {{"ZEST_API_KEY", t.key}};
  return p;
}

// opencode: an OpenAI-compatible provider in OPENCODE_CONFIG_CONTENT, which
// it merges over its own config.
LaunchPlan Opencode(const AgentTarget& t) {
  LaunchPlan p = Plan("opencode", "npm install -g opencode-ai");
  nlohmann::json model = {{"name", t.model}, {"tool_call", true}};
  if (t.context > 0) model["limit"] = {{"context", t.context}, {"output", 4096}};
  const nlohmann::json config = {
      {"model", "zest/" + t.model},
      {"small_model", "zest/" + t.model},
      {"provider",
       {{"zest",
         {{"npm", "@ai-sdk/openai-compatible"},
          {"name", "zest"},
          {"options", {{"baseURL", t.base_url + "/v1"}, {"apiKey", t.key}}},
          {"models", {{t.model, model}}}}}}}};
  p.env = {{"OPENCODE_CONFIG_CONTENT", config.dump()}};
  return p;
}

// Continue's CLI (cn): a config file of its own, named with --config.
LaunchPlan Continue(const AgentTarget& t) {
  LaunchPlan p = Plan("cn", "npm install -g @continuedev/cli");
  p.config_file = t.home + "/.continue/zest-launch.yaml";
  std::string options = "{ maxTokens: 4096";
  if (t.context > 0) options += ", contextLength: " + std::to_string(t.context);
  options += " }";
  auto quoted = [](const std::string& s) {
    return nlohmann::json(s).dump();
  };  // YAML takes JSON strings
  p.config_text =
      "name: zest\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: zest\n"
      "    provider: openai\n    model: " +
      quoted(t.model) + "\n    apiBase: " + quoted(t.base_url + "/v1") +
      "\n    apiKey: " + quoted(t.key) +
      "\n    roles: [chat, edit, apply]\n    capabilities: [tool_use]\n"
      "    defaultCompletionOptions: " +
      options + "\n";
  p.args = {"--config", p.config_file};
  return p;
}

}  // namespace

const std::vector<std::string_view>& LaunchableAgents() {
  static const std::vector<std::string_view> kAgents = {"claude", "codex", "opencode", "qwen",
                                                        "continue"};
  return kAgents;
}

Result<LaunchPlan> PlanAgentLaunch(std::string_view agent, const AgentTarget& target,
                                   const std::vector<std::string>& user_args) {
  std::optional<LaunchPlan> plan;
  if (agent == "claude") plan = Claude(target);
  if (agent == "codex") plan = Codex(target);
  if (agent == "opencode") plan = Opencode(target);
  if (agent == "qwen") plan = Qwen(target);
  if (agent == "continue") plan = Continue(target);
  if (!plan) {
    std::string known;
    for (std::string_view a : LaunchableAgents())
      known += (known.empty() ? "" : ", ") + std::string(a);
    return InvalidArgument("zest launch knows " + known + "; not '" + std::string(agent) + "'");
  }
  plan->args.insert(plan->args.end(), user_args.begin(), user_args.end());
  if (target.key != "unused") plan->secret = target.key;
  return *plan;
}

std::string DescribeLaunch(const LaunchPlan& plan) {
  auto hidden = [&plan](std::string value) {
    if (plan.secret.empty()) return value;
    for (size_t at = value.find(plan.secret); at != std::string::npos;
         at = value.find(plan.secret, at)) {
      value.replace(at, plan.secret.size(), "(hidden)");
    }
    return value;
  };
  std::string out;
  for (const auto& [name, value] : plan.env) {
    out += (out.empty() ? "" : ", ") + name + "=" + hidden(value);
  }
  for (size_t i = 0; i + 1 < plan.args.size(); ++i) {
    if (plan.args[i] == "-c") out += (out.empty() ? "" : ", ") + hidden(plan.args[i + 1]);
  }
  if (!plan.config_file.empty()) out += (out.empty() ? "" : ", ") + plan.config_file;
  return out;
}

}  // namespace zest::cli
