// `zest logs [MODEL] [-f] [-n N]`: zest's own recent log lines, or those of
// MODEL's running engine, from GET /api/v1/logs; -f keeps printing new
// lines as they are logged (SSE) until Ctrl-C.

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "config/settings.h"
#include "models/curl_library.h"

namespace zest::cli {
namespace {

struct LogsOptions {
  std::string model;
  bool follow = false;
  int lines = 100;
};

std::atomic<bool> g_stop{false};

std::string UrlEncode(const std::string& text) { return curl::Escape(text); }

int Logs(const LogsOptions& options) {
  ApiClient client(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
  std::string path = "/api/v1/logs?n=" + std::to_string(options.lines);
  if (!options.model.empty()) path += "&model=" + UrlEncode(options.model);
  if (!options.follow) {
    auto reply = client.Get(path);
    if (!reply.ok()) {
      std::fprintf(stderr, "zest: %s\n", reply.status().message().c_str());
      return 1;
    }
    for (const auto& line : (*reply)["lines"]) std::printf("%s\n", line.get<std::string>().c_str());
    return 0;
  }
  std::signal(SIGINT, [](int) { g_stop = true; });
  Status st = client.Stream(
      path + "&follow=1", nullptr,
      [](const nlohmann::json& event) {
        std::printf("%s\n", event.value("line", std::string()).c_str());
        std::fflush(stdout);
      },
      &g_stop);
  if (st.ok() || st.code() == ErrorCode::kCancelled) return 0;
  std::fprintf(stderr, "zest: %s\n", st.message().c_str());
  return 1;
}

}  // namespace

void AddLogsCommand(CLI::App& app, Action* action) {
  auto options = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand("logs", "Show zest's recent log lines, or a model engine's");
  cmd->add_option("MODEL", options->model, "A loaded model: show its engine's output instead");
  cmd->add_flag("-f,--follow", options->follow, "Keep printing new lines (Ctrl-C stops)");
  cmd->add_option("-n,--lines", options->lines, "How many recent lines (default 100)")
      ->check(CLI::Range(0, 10000));
  cmd->callback([action, options] { *action = [options] { return Logs(*options); }; });
}

}  // namespace zest::cli
