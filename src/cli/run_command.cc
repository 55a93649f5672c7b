// `zest run MODEL [PROMPT...]`: chat in the terminal through the server's
// API. Tokens print as they stream; Ctrl-C stops the current answer, not the
// program (Ctrl-D or /bye leaves).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "config/settings.h"

namespace zest::cli {
namespace {

using nlohmann::json;

std::atomic<bool> g_interrupted{false};  // set by SIGINT, read by the stream

void OnSigint(int) { g_interrupted = true; }

// Without SA_RESTART, so a Ctrl-C at the prompt interrupts the read.
void InstallSigint() {
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// A string field of a stream delta; engines send null for "no text".
std::string TextField(const json& delta, const char* key) {
  auto it = delta.find(key);
  return it != delta.end() && it->is_string() ? it->get<std::string>() : "";
}

struct RunOptions {
  std::string model;
  std::vector<std::string> prompt;
  std::string system;
  int max_tokens = 0;
  std::vector<std::string> options;  // KEY=VALUE request fields (temperature=0.2, ...)
};

// "-o temperature=0.2": the value as JSON when it parses (numbers, true,
// objects), else as a string.
Status AddOptions(const std::vector<std::string>& options, json& body) {
  for (const std::string& option : options) {
    auto eq = option.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("option '" + option + "' is not KEY=VALUE");
    std::string value = option.substr(eq + 1);
    json parsed = json::parse(value, nullptr, false);
    body[option.substr(0, eq)] = parsed.is_discarded() ? json(value) : parsed;
  }
  return Status::Ok();
}

// Sends the conversation and prints the answer as it streams; returns the
// answer text (partial when stopped).
Result<std::string> Ask(const ApiClient& client, const RunOptions& opts, const json& messages) {
  json body = {{"model", opts.model}, {"messages", messages}, {"stream", true}};
  if (opts.max_tokens > 0) body["max_tokens"] = opts.max_tokens;
  ZEST_RETURN_IF_ERROR(AddOptions(opts.options, body));
  std::string answer;
  g_interrupted = false;
  Status st = client.Stream(
      "/v1/chat/completions", body,
      [&](const json& chunk) {
        if (!chunk.contains("choices") || chunk["choices"].empty()) return;
        const json& delta = chunk["choices"][0].value("delta", json::object());
        std::string piece = TextField(delta, "content");
        if (piece.empty()) piece = TextField(delta, "reasoning_content");
        answer += piece;
        std::fputs(piece.c_str(), stdout);
        std::fflush(stdout);
      },
      &g_interrupted);
  std::fputs("\n", stdout);
  if (st.code() == ErrorCode::kCancelled) {
    std::fputs("[stopped]\n", stderr);
    return answer;
  }
  if (!st.ok()) return st;
  return answer;
}

int OneShot(const ApiClient& client, const RunOptions& opts, const std::string& prompt) {
  json messages = json::array();
  if (!opts.system.empty()) messages.push_back({{"role", "system"}, {"content", opts.system}});
  messages.push_back({{"role", "user"}, {"content", prompt}});
  auto answer = Ask(client, opts, messages);
  if (!answer.ok()) {
    std::fprintf(stderr, "zest: %s\n", answer.status().message().c_str());
    return 1;
  }
  return 0;
}

int Interactive(const ApiClient& client, const RunOptions& opts) {
  json messages = json::array();
  if (!opts.system.empty()) messages.push_back({{"role", "system"}, {"content", opts.system}});
  std::fprintf(stderr, "chatting with %s (Ctrl-C stops an answer, Ctrl-D or /bye quits)\n",
               opts.model.c_str());
  while (true) {
    std::fputs(">>> ", stdout);
    std::fflush(stdout);
    std::string line;
    g_interrupted = false;
    if (!std::getline(std::cin, line)) {
      if (g_interrupted) {  // Ctrl-C at the prompt: a fresh prompt, like a shell
        std::cin.clear();
        std::fputs("\n", stdout);
        continue;
      }
      std::fputs("\n", stdout);
      return 0;
    }
    if (line == "/bye" || line == "/exit") return 0;
    if (line.empty()) continue;
    messages.push_back({{"role", "user"}, {"content", line}});
    auto answer = Ask(client, opts, messages);
    if (!answer.ok()) {
      std::fprintf(stderr, "zest: %s\n", answer.status().message().c_str());
      messages.erase(messages.end() - 1);
      continue;
    }
    messages.push_back({{"role", "assistant"}, {"content", *answer}});
  }
}

int Run(const RunOptions& opts) {
  InstallSigint();
  ApiClient client(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
  if (!opts.prompt.empty()) {
    std::string prompt;
    for (const auto& word : opts.prompt) prompt += (prompt.empty() ? "" : " ") + word;
    return OneShot(client, opts, prompt);
  }
  if (!isatty(STDIN_FILENO)) {  // `echo hi | zest run m`: stdin is the prompt
    std::string prompt((std::istreambuf_iterator<char>(std::cin)), {});
    return OneShot(client, opts, prompt);
  }
  return Interactive(client, opts);
}

}  // namespace

void AddRunCommand(CLI::App& app, Action* action) {
  auto opts = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Chat with a model in the terminal");
  run->add_option("MODEL", opts->model, "Model name")->required();
  run->add_option("PROMPT", opts->prompt, "Ask once and exit (otherwise interactive)");
  run->add_option("--system", opts->system, "System prompt");
  run->add_option("--max-tokens", opts->max_tokens, "Limit each answer's length");
  // One value per -o, so `-o k=v PROMPT` leaves PROMPT to the positional.
  run->add_option("-o,--option", opts->options,
                  "Extra request field KEY=VALUE, e.g. -o temperature=0.2 (repeatable)")
      ->allow_extra_args(false);
  run->callback([action, opts] { *action = [opts] { return Run(*opts); }; });
}

}  // namespace zest::cli
