// The engine bridge with real processes and sockets: the test itself plays
// the engine's TCP side (the bridge's child is only `sleep`, or a shell that
// exits), so what crosses the bridge is checked byte for byte.
#include "engines/tcp_bridge.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/testing/temp_dir.h"
#include "engines/flm_command.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;

// A TCP listener on 127.0.0.1 and a free port.
struct Listener {
  int fd = -1;
  uint16_t port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    EXPECT_EQ(::listen(fd, 4), 0);
  }
  ~Listener() { ::close(fd); }
};

// Runs RunBridge in a child process; returns its pid.
pid_t StartBridge(const BridgeOptions& options) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(RunBridge(options));
  return pid;
}

int ConnectUnix(const fs::path& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  for (int i = 0; i < 200; ++i) {  // the bridge needs a moment to listen
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) return fd;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(fd);
  return -1;
}

std::string ReadSome(int fd) {
  char buffer[256];
  ssize_t n = ::read(fd, buffer, sizeof(buffer));
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
}

int WaitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A process's effective capabilities (/proc/PID/status CapEff), as hex.
std::string EffectiveCapabilities(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("CapEff:")) return line.substr(line.find_first_not_of(" \t", 7));
  }
  return "";
}

// The bridge's child: the first pid in /proc/PID/task/PID/children.
pid_t FirstChild(pid_t pid) {
  const std::string id = std::to_string(pid);
  std::ifstream children("/proc/" + id + "/task/" + id + "/children");
  pid_t child = 0;
  children >> child;
  return child;
}

class TcpBridgeTest : public ::testing::Test {
 protected:
  zest::testing::TempDir tmp_{"bridge"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(TcpBridgeTest, RelaysBothWaysAndPassesTheClientsLeavingOn) {
  Listener engine;
  const fs::path socket = dir_ / "engine.sock";
  pid_t bridge = StartBridge({socket, engine.port, {"sleep", "30"}});
  int client = ConnectUnix(socket);
  ASSERT_GE(client, 0);
  EXPECT_EQ(fs::status(socket).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_EQ(::write(client, "GET / HTTP/1.1\r\n\r\n", 18), 18);
  int accepted = ::accept(engine.fd, nullptr, nullptr);
  ASSERT_GE(accepted, 0);
  EXPECT_EQ(ReadSome(accepted), "GET / HTTP/1.1\r\n\r\n");
  ASSERT_EQ(::write(accepted, "HTTP/1.1 200 OK\r\n", 17), 17);
  EXPECT_EQ(ReadSome(client), "HTTP/1.1 200 OK\r\n");
  // The client goes: the engine's side of the connection ends too (so an
  // engine stops generating for a client that left).
  ::close(client);
  EXPECT_EQ(ReadSome(accepted), "");
  ::close(accepted);
  // SIGTERM reaches the engine; the bridge exits with its status and
  // removes the socket.
  ::kill(bridge, SIGTERM);
  EXPECT_EQ(WaitExit(bridge), 128 + SIGTERM);
  EXPECT_FALSE(fs::exists(socket));
}

TEST_F(TcpBridgeTest, ExitsWithTheEngine) {
  const fs::path socket = dir_ / "engine.sock";
  pid_t bridge = StartBridge({socket, 1, {"sh", "-c", "exit 3"}});
  EXPECT_EQ(WaitExit(bridge), 3);
  EXPECT_FALSE(fs::exists(socket));
  pid_t missing = StartBridge({socket, 1, {"/nonexistent/flm"}});
  EXPECT_EQ(WaitExit(missing), 127);
}

// As root the bridge's sandbox leaves it CAP_SYS_ADMIN for the engine's
// bwrap to use; the bridge itself gives up every capability once that
// child is started. Here the child (`sleep`) keeps root's, so what the
// bridge lost it dropped itself.
TEST_F(TcpBridgeTest, HoldsNoCapabilityOnceTheEngineIsStarted) {
  if (::geteuid() != 0) GTEST_SKIP() << "capabilities to drop exist only as root";
  const std::string all = EffectiveCapabilities(::getpid());
  ASSERT_NE(all, std::string(16, '0'));
  const fs::path socket = dir_ / "engine.sock";
  pid_t bridge = StartBridge({socket, 1, {"sleep", "30"}});
  pid_t child = 0;
  // The child exists before the drop: wait for it, then for the drop.
  for (int i = 0; i < 1000 && (child = FirstChild(bridge)) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(child, 0);
  std::string bridge_caps = EffectiveCapabilities(bridge);
  for (int i = 0; i < 1000 && bridge_caps != std::string(16, '0'); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    bridge_caps = EffectiveCapabilities(bridge);
  }
  EXPECT_EQ(bridge_caps, std::string(16, '0'));
  EXPECT_EQ(EffectiveCapabilities(child), all);
  ::kill(bridge, SIGTERM);
  WaitExit(bridge);
}

TEST_F(TcpBridgeTest, AConnectionBeforeTheEngineListensIsClosedNotHeld) {
  const fs::path socket = dir_ / "engine.sock";
  Listener taken;  // a port nobody accepts on once closed
  const uint16_t port = taken.port;
  ::close(taken.fd);
  taken.fd = ::socket(AF_INET, SOCK_STREAM, 0);
  pid_t bridge = StartBridge({socket, port, {"sleep", "30"}});
  int client = ConnectUnix(socket);
  ASSERT_GE(client, 0);
  EXPECT_EQ(ReadSome(client), "");  // closed: zest's readiness poll tries again
  ::close(client);
  ::kill(bridge, SIGTERM);
  WaitExit(bridge);
}

TEST(FlmCommandTest, FastFlowLmInItsOwnNetworkNamespaceBehindTheBridge) {
  FlmOptions o;
  o.flm = "/usr/bin/flm";
  o.checkpoint = "llama3.2:1b";
  o.ctx_len = 8192;
  o.socket = "/run/zest-x/engine-3.sock";
  o.zest = "/usr/local/bin/zest";
  o.hidden = {"/home/u/.local/share/zest"};
  EXPECT_EQ(FlmCommand(o), (std::vector<std::string>{"bwrap",
                                                     "--die-with-parent",
                                                     "--unshare-pid",
                                                     "--unshare-ipc",
                                                     "--unshare-uts",
                                                     "--unshare-cgroup-try",
                                                     "--new-session",
                                                     "--unshare-net",
                                                     "--bind",
                                                     "/",
                                                     "/",
                                                     "--dev-bind",
                                                     "/dev",
                                                     "/dev",
                                                     "--proc",
                                                     "/proc",
                                                     "--tmpfs",
                                                     "/home/u/.local/share/zest",
                                                     "--",
                                                     "/usr/local/bin/zest",
                                                     "engine-bridge",
                                                     "--socket",
                                                     "/run/zest-x/engine-3.sock",
                                                     "--port",
                                                     "52625",
                                                     "--",
                                                     "/usr/bin/flm",
                                                     "serve",
                                                     "llama3.2:1b",
                                                     "--ctx-len",
                                                     "8192",
                                                     "--port",
                                                     "52625",
                                                     "--host",
                                                     "127.0.0.1",
                                                     "--quiet"}));
}

}  // namespace
}  // namespace zest::engines
