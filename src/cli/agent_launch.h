// What `zest launch AGENT` runs: each coding agent's program, the flags and
// the environment that point it at this zest (its base URL, the key, the
// model for every role the agent has, the context window), and the command
// that installs it. One table of facts per agent, taken from the agents'
// own documentation and checked by a real turn of each in tests/agents
// (zest_launch.test.mjs). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace zest::cli {

struct AgentTarget {
  std::string base_url;  // zest's, without a trailing slash ("http://127.0.0.1:9378")
  std::string key;       // sent as the agent's API key ("unused" when zest needs none)
  std::string model;
  uint64_t context = 0;  // the model's context window as zest serves it; 0: unknown
  std::string home;      // the user's HOME, where an agent's settings file goes
};

struct LaunchPlan {
  std::string program;            // looked up on PATH
  std::vector<std::string> args;  // after the program's name: its flags, then the user's
  std::vector<std::pair<std::string, std::string>> env;  // set over the caller's
  // A file the agent reads its settings from, written before it starts
  // (its path and contents); empty path: none.
  std::string config_file;
  std::string config_text;
  std::string install;  // how to install it ("npm install -g ...")
  std::string secret;   // the key, never printed
};

// The agents `zest launch` knows: claude, codex, opencode, qwen, continue.
const std::vector<std::string_view>& LaunchableAgents();

// kInvalidArgument naming the agents it knows for any other name.
Result<LaunchPlan> PlanAgentLaunch(std::string_view agent, const AgentTarget& target,
                                   const std::vector<std::string>& user_args);

// "ANTHROPIC_BASE_URL=http://..., ANTHROPIC_MODEL=coder, ..." for the
// terminal: what was set, with the key (where it is one) as "(hidden)".
std::string DescribeLaunch(const LaunchPlan& plan);

}  // namespace zest::cli
