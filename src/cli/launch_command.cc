// `zest launch AGENT [--model M] [-- ARGS...]`: runs an installed coding
// agent (claude, codex, opencode, qwen, continue) pointed at this zest: the
// base URL from ZEST_HOST, the key from ZEST_API_KEY, the model (and its
// context window, from /v1/models) for every role the agent has, as
// cli/agent_launch.h plans it. Prints what it set, then becomes the agent
// (exec), so the agent owns the terminal and its exit status is zest's.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/agent_launch.h"
#include "cli/api_client.h"
#include "cli/commands.h"
#include "config/settings.h"

namespace zest::cli {
namespace {

struct LaunchOptions {
  std::string agent;
  std::string model;
  std::vector<std::string> args;
};

// The model to point the agent at, and its context window: the one named,
// else the only one zest lists.
Result<AgentTarget> TargetFor(const ApiClient& client, const std::string& model) {
  AgentTarget target;
  target.base_url = client.base_url();
  while (target.base_url.ends_with('/')) target.base_url.pop_back();
  target.key = config::ProcessEnv("ZEST_API_KEY").value_or("");
  if (target.key.empty()) target.key = "unused";
  target.home = config::ProcessEnv("HOME").value_or("");
  nlohmann::json entry;
  if (!model.empty()) {
    // As the name is written ("org/repo:Q4_K_M"): the route takes slashes.
    Result<nlohmann::json> found = client.Get("/v1/models/" + model);
    if (!found.ok()) return found.status();
    entry = std::move(*found);
  } else {
    Result<nlohmann::json> list = client.Get("/v1/models");
    if (!list.ok()) return list.status();
    const nlohmann::json& data = (*list)["data"];
    if (data.size() != 1) {
      std::string names;
      for (const nlohmann::json& m : data) {
        names += (names.empty() ? "" : ", ") + m.value("id", std::string());
      }
      return InvalidArgument("name the model with --model (zest serves " +
                             (names.empty() ? std::string("none") : names) + ")");
    }
    entry = data[0];
  }
  target.model = entry.value("id", model);
  target.context = entry.value("context_window", uint64_t{0});
  return target;
}

// `program` on PATH, as execvp would find it; empty when it is not there.
std::string OnPath(const std::string& program) {
  const std::string path = config::ProcessEnv("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

Status WriteConfig(const LaunchPlan& plan) {
  if (plan.config_file.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(plan.config_file).parent_path(), ec);
  const std::string temp = plan.config_file + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << plan.config_text;
    if (!out) return Internal("cannot write " + temp);
  }
  ::chmod(temp.c_str(), 0600);  // it holds the key
  std::filesystem::rename(temp, plan.config_file, ec);
  if (ec) return Internal("cannot write " + plan.config_file + ": " + ec.message());
  return Status::Ok();
}

int Launch(const LaunchOptions& options) {
  ApiClient client = ClientFromEnv();
  Result<AgentTarget> target = TargetFor(client, options.model);
  if (!target.ok()) return PrintError(target.status());
  Result<LaunchPlan> plan = PlanAgentLaunch(options.agent, *target, options.args);
  if (!plan.ok()) return PrintError(plan.status());
  const std::string program = OnPath(plan->program);
  if (program.empty()) {
    std::fprintf(stderr, "zest: %s is not installed (no `%s` on PATH); install it with:\n  %s\n",
                 options.agent.c_str(), plan->program.c_str(), plan->install.c_str());
    return 127;
  }
  if (Status written = WriteConfig(*plan); !written.ok()) return PrintError(written);
  for (const auto& [name, value] : plan->env) ::setenv(name.c_str(), value.c_str(), 1);
  std::fprintf(stderr, "zest launch: %s (model %s) with %s\n", program.c_str(),
               target->model.c_str(), DescribeLaunch(*plan).c_str());
  std::vector<char*> argv;
  std::string name = plan->program;
  argv.push_back(name.data());
  for (std::string& arg : plan->args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execv(program.c_str(), argv.data());
  std::perror(("zest: cannot run " + program).c_str());
  return 126;
}

}  // namespace

void AddLaunchCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<LaunchOptions>();
  auto* cmd = app.add_subcommand(
      "launch",
      "Run a coding agent (claude, codex, opencode, qwen, continue) pointed at this zest");
  cmd->add_option("AGENT", options->agent, "claude, codex, opencode, qwen or continue")->required();
  cmd->add_option("--model", options->model,
                  "The model for the agent (default: the only one zest serves)");
  cmd->add_option("ARGS", options->args, "The agent's own arguments, after --");
  cmd->callback([action, options] { *action = [options] { return Launch(*options); }; });
}

}  // namespace zest::cli
