#include "engines/tcp_bridge.h"

#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <stop_token>
#include <thread>

namespace zest::engines {
namespace {

std::atomic<int> g_signal{0};

void OnSignal(int sig) { g_signal = sig; }

int ListenUnix(const std::filesystem::path& path) {
  sockaddr_un addr{};
  if (path.native().size() >= sizeof(addr.sun_path)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::chmod(path.c_str(), 0600) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int ConnectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Copies what `from` has now to `to`; false when `from` ended or either
// side failed.
bool CopySome(int from, int to) {
  char buffer[64 * 1024];
  ssize_t n = ::read(from, buffer, sizeof(buffer));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  for (ssize_t off = 0; off < n;) {
    ssize_t w = ::send(to, buffer + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += w;
  }
  return true;
}

// One relayed connection, served by a thread of its own that polls both
// sockets. When either side ends or fails, both are shut down, so the
// engine sees its client go (and stops generating), as it would without
// the bridge. Owned by Relays, which joins it.
class Link {
 public:
  Link(int client, int engine)
      : client_(client),
        engine_(engine),
        thread_([this](const std::stop_token& stop) { Run(stop); }) {}
  ~Link() {
    Shutdown();
    thread_.request_stop();
    thread_.join();  // before the descriptors it uses are closed
    ::close(client_);
    ::close(engine_);
  }
  bool done() const { return done_.load(); }

 private:
  void Shutdown() {
    ::shutdown(client_, SHUT_RDWR);
    ::shutdown(engine_, SHUT_RDWR);
  }
  void Run(const std::stop_token& stop) {
    pollfd fds[2] = {{client_, POLLIN, 0}, {engine_, POLLIN, 0}};
    bool open = true;
    while (open && !stop.stop_requested()) {
      int ready = ::poll(fds, 2, 100);  // the timeout only bounds how late a stop is seen
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      if (fds[0].revents != 0) open = CopySome(client_, engine_);
      if (open && fds[1].revents != 0) open = CopySome(engine_, client_);
    }
    Shutdown();
    done_.store(true);
  }

  const int client_;
  const int engine_;
  std::atomic<bool> done_{false};
  std::jthread thread_;  // last: started once the rest is set up
};

// The bridge's live connections. Finished ones are dropped (joined) as new
// ones arrive; the rest are shut down and joined when the bridge exits.
class Relays {
 public:
  void Start(int client, uint16_t port) {
    links_.remove_if([](const std::unique_ptr<Link>& link) { return link->done(); });
    int engine = ConnectLoopback(port);
    if (engine < 0) {  // not listening yet (still loading): the caller retries
      ::close(client);
      return;
    }
    links_.push_back(std::make_unique<Link>(client, engine));
  }

 private:
  std::list<std::unique_ptr<Link>> links_;
};

pid_t StartChild(const std::vector<std::string>& command, const sigset_t& old_mask) {
  // Until its exec the child has the bridge's handler for SIGTERM and
  // SIGINT: one passed on to it then would only set a flag in its copy of
  // the bridge, and the engine would start deaf to it. So both stay blocked
  // across the fork until the child has their default action back; one that
  // came meanwhile is delivered then, and stops it.
  sigset_t stop_signals, bridge_mask;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  ::sigprocmask(SIG_BLOCK, &stop_signals, &bridge_mask);
  pid_t pid = ::fork();
  if (pid != 0) {
    ::sigprocmask(SIG_SETMASK, &bridge_mask, nullptr);
    return pid;
  }
  // The child: dies with the bridge, and gets the signal mask zest gave us.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGINT, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr, "zest engine-bridge: cannot run %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(127);
}

// Every capability this process holds, for good: as root its sandbox
// leaves it one (CAP_SYS_ADMIN, bridged_command.h) that only the engine's
// bwrap, now started, needed. The bridge relays bytes and needs none.
void DropCapabilities() {
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
  ::syscall(SYS_capset, &header, none);
}

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

std::vector<std::string> BridgeCommand(const std::filesystem::path& zest,
                                       const std::filesystem::path& socket, uint16_t port) {
  return {zest.string(), "engine-bridge",      "--socket", socket.string(),
          "--port",      std::to_string(port), "--"};
}

int RunBridge(const BridgeOptions& options) {
  if (options.command.empty() || options.port == 0) {
    std::fprintf(stderr, "zest engine-bridge: needs a port and a command\n");
    return 1;
  }
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // bwrap (our parent) gone: so are we
  struct sigaction action {};
  action.sa_handler = OnSignal;
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
  sigset_t none, old_mask;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, &old_mask);
  int listener = ListenUnix(options.socket);
  if (listener < 0) {
    std::fprintf(stderr, "zest engine-bridge: cannot listen on %s: %s\n", options.socket.c_str(),
                 std::strerror(errno));
    return 1;
  }
  pid_t child = StartChild(options.command, old_mask);
  if (child < 0) {
    std::fprintf(stderr, "zest engine-bridge: fork: %s\n", std::strerror(errno));
    ::unlink(options.socket.c_str());
    return 1;
  }
  DropCapabilities();
  Relays relays;
  int status = 0;
  bool passed_on = false;
  while (true) {
    if (int sig = g_signal.load(); sig != 0 && !passed_on) {
      ::kill(child, sig);
      passed_on = true;
    }
    if (::waitpid(child, &status, WNOHANG) == child) break;
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
      int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client >= 0) relays.Start(client, options.port);
    }
  }
  ::close(listener);
  ::unlink(options.socket.c_str());
  return ExitCode(status);
}

}  // namespace zest::engines
