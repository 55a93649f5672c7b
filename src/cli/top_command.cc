// `zest top`: a live view of the server, redrawn every second from its API
// (system-info, ps, stats): devices with utilisation and memory bars, the
// loaded instances with slots and queue depth per priority, tokens/s, and
// the last request. Uses the terminal's alternate screen; q or Ctrl-C
// quits and restores the terminal. Works over SSH (plain ANSI escapes).
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "cli/api_client.h"
#include "cli/commands.h"
#include "cli/top_view.h"
#include "config/settings.h"

namespace zest::cli {
namespace {

volatile std::sig_atomic_t g_quit = 0;

// Raw keys and the alternate screen for the view's lifetime; restored on
// every exit path.
class TerminalSession {
 public:
  TerminalSession() {
    tty_ = ::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved_) == 0;
    if (tty_) {
      struct termios raw = saved_;
      raw.c_lflag &= ~(ICANON | ECHO);  // ISIG stays: Ctrl-C is SIGINT
      raw.c_cc[VMIN] = 1;
      raw.c_cc[VTIME] = 0;
      ::tcsetattr(STDIN_FILENO, TCSANOW, &raw);
    }
    std::fputs("\x1b[?1049h\x1b[?25l", stdout);  // alternate screen, hide cursor
    std::fflush(stdout);
  }
  ~TerminalSession() {
    std::fputs("\x1b[?25h\x1b[?1049l", stdout);
    std::fflush(stdout);
    if (tty_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  TerminalSession(const TerminalSession&) = delete;
  TerminalSession& operator=(const TerminalSession&) = delete;

 private:
  bool tty_ = false;
  struct termios saved_ {};
};

std::pair<int, int> TerminalSize() {
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    return {ws.ws_col, ws.ws_row};
  }
  return {80, 24};
}

// Waits up to a second for a key; true when the user quits.
bool WaitOrQuit() {
  struct pollfd in {
    STDIN_FILENO, POLLIN, 0
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!g_quit) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    int ready = ::poll(&in, 1, static_cast<int>(left.count()));
    if (ready < 0) continue;  // EINTR: the signal handler ran; the loop checks g_quit
    if (ready == 0) return false;
    char c = 0;
    if (::read(STDIN_FILENO, &c, 1) <= 0) {
      in.fd = -1;  // stdin closed (not a terminal): keep refreshing until a signal
      continue;
    }
    if (c == 'q' || c == 'Q' || c == 3) return true;
  }
  return true;
}

std::string Clock() {
  std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::localtime(&now));
  return buf;
}

Result<TopInput> Fetch(const ApiClient& client) {
  TopInput in;
  in.server = client.base_url();
  in.clock = Clock();
  ZEST_ASSIGN_OR_RETURN(in.system, client.Get("/api/v1/system-info"));
  ZEST_ASSIGN_OR_RETURN(nlohmann::json ps, client.Get("/api/v1/ps"));
  in.instances = ps.value("instances", nlohmann::json::array());
  ZEST_ASSIGN_OR_RETURN(in.stats, client.Get("/api/v1/stats"));
  return in;
}

double CompletionTokens(const nlohmann::json& stats) {
  return stats.value("totals", nlohmann::json::object()).value("completion_tokens", 0.0);
}

void Draw(const TopInput& in) {
  auto [width, height] = TerminalSize();
  std::string frame = "\x1b[H";
  for (const std::string& line : RenderTop(in, width, height)) frame += line + "\x1b[K\r\n";
  frame += "\x1b[J";
  std::fwrite(frame.data(), 1, frame.size(), stdout);
  std::fflush(stdout);
}

int Top() {
  ApiClient client(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
  auto first = Fetch(client);  // before the screen switch, so errors stay visible
  if (!first.ok()) {
    std::fprintf(stderr, "zest: %s\n", first.status().message().c_str());
    return 1;
  }
  std::signal(SIGINT, [](int) { g_quit = 1; });
  std::signal(SIGTERM, [](int) { g_quit = 1; });
  TerminalSession terminal;
  double last_tokens = CompletionTokens(first->stats);
  auto last_time = std::chrono::steady_clock::now();
  Draw(*first);
  while (!WaitOrQuit()) {
    auto in = Fetch(client);
    if (!in.ok()) continue;  // a missed refresh; the server may be restarting
    auto now = std::chrono::steady_clock::now();
    double tokens = CompletionTokens(in->stats);
    double seconds = std::chrono::duration<double>(now - last_time).count();
    if (seconds > 0 && tokens >= last_tokens)
      in->tokens_per_second = (tokens - last_tokens) / seconds;
    last_tokens = tokens;
    last_time = now;
    Draw(*in);
  }
  return 0;
}

}  // namespace

void AddTopCommand(CLI::App& app, Action* action) {
  auto* cmd =
      app.add_subcommand("top", "Live view: devices, loaded models, queues, tokens/s (q quits)");
  cmd->callback([action] { *action = [] { return Top(); }; });
}

}  // namespace zest::cli
