// Tests against the real llama-server that `make engines` provisions (`make
// test` provisions it first, so these never skip for lack of an engine).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "config/settings.h"
#include "engines/engine_locator.h"
#include "engines/engine_probe.h"
#include "engines/llama_server_flags.h"
#include "engines/process.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// Where `zest serve` would find it with this process's settings.
EngineLocation RealEngine() {
  auto loaded = config::LoadSettings({config::ProcessEnv, {}, std::nullopt});
  EXPECT_TRUE(loaded.ok());
  LocateOptions options;
  options.path_env = config::ProcessEnv("PATH").value_or("");
  if (loaded.ok()) options.rootfs = loaded->settings.engine_rootfs;
  auto location = LocateEngine(options);
  EXPECT_TRUE(location.ok()) << location.status().ToString();
  return location.ok() ? *location : EngineLocation{};
}

// Runs `argv` to completion and returns its output lines.
std::vector<std::string> RunToEnd(const std::vector<std::string>& argv,
                                  std::vector<std::string> env = {}) {
  SpawnOptions options;
  options.argv = argv;
  options.env = std::move(env);
  auto process = Process::Spawn(options);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  if (!process.ok()) return {};
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((*process)->Running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  (*process)->Terminate();
  EXPECT_EQ(*(*process)->ExitStatus(), 0) << Process::DescribeExit(*(*process)->ExitStatus());
  return (*process)->output().Tail(1000);
}

bool Contains(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// Host pids whose command line mentions `needle` (engines inside bwrap's pid
// namespace are still visible here under their host pids).
std::vector<pid_t> PidsMentioning(const std::string& needle) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    pid_t pid = std::atoi(entry->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::string cmdline = testing::ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    if (cmdline.find(needle) != std::string::npos && !testing::ProcessGone(pid))
      pids.push_back(pid);
  }
  closedir(proc);
  return pids;
}

// Sends GET /health over the UNIX socket; the raw HTTP response.
std::string GetHealth(const std::filesystem::path& socket_path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string request = "GET /health HTTP/1.1\r\nHost: engine\r\nConnection: close\r\n\r\n";
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t got;
      while ((got = recv(fd, buffer, sizeof(buffer), 0)) > 0)
        response.append(buffer, static_cast<std::size_t>(got));
    }
  }
  close(fd);
  return response;
}

TEST(RealEngine, ProbeReportsAVersion) {
  EngineLocation location = RealEngine();
  ProbeOptions options;
  options.env = {"GGML_VK_VISIBLE_DEVICES=0"};
  auto info = ProbeEngine(location, options);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_FALSE(info->version.empty());
  EXPECT_NE(info->version.find("build"), std::string::npos) << info->version;
  std::cout << "engine: " << EngineSourceName(location.source) << " " << location.binary
            << " version " << info->version << ", " << info->devices.size() << " device(s)\n";
  for (const auto& device : info->devices)
    std::cout << "  " << device.name << ": " << device.description << "\n";
}

// A value of the kind each flag takes that this llama-server accepts;
// `files` holds a template, a grammar and a JSON schema to name.
std::vector<std::string> SampleValues(const FlagSpec& spec, const std::filesystem::path& files) {
  const std::string name(spec.names.front());
  auto within = [&spec](double v) { return v >= spec.min && v <= spec.max ? v : spec.min; };
  switch (spec.value) {
    case FlagValue::kNone:
      return {};
    case FlagValue::kInt:
      return {std::to_string(static_cast<long long>(within(1)))};
    case FlagValue::kIntPair:
      return {"1", "2"};
    case FlagValue::kNumber:
      return {std::to_string(within(0.5))};
    case FlagValue::kChoice:
    case FlagValue::kChoiceList:
      return {std::string(spec.choices.front())};
    case FlagValue::kPath:
      if (name == "--grammar-file") return {(files / "g.gbnf").string()};
      if (name == "--json-schema-file") return {(files / "s.json").string()};
      return {(files / "t.jinja").string()};
    case FlagValue::kPathList:
      return {(files / "t.jinja").string()};
    case FlagValue::kScaledPathList:
      return {(files / "t.jinja").string() + ":1"};
    case FlagValue::kText: {
      static const std::map<std::string, std::string> kText = {
          {"--override-kv", "general.name=str:x"},
          {"--logit-bias", "15+1"},
          {"--samplers", "top_k;top_p"},
          {"--sampling-seq", "kp"},
          {"--chat-template", "chatml"},
          {"--chat-template-kwargs", "{}"},
          {"--json-schema", "{}"},
          {"--grammar", "root ::= \"a\""},
          {"--reasoning-effort", "low"}};
      auto it = kText.find(name);
      return {it != kText.end() ? it->second : "x"};
    }
  }
  return {};
}

// The allow-list names only flags this llama-server has: every one of them,
// with a value of its kind, parses (an unknown flag or value is "invalid
// argument"). --list-devices comes last, after the others are parsed.
TEST(RealEngine, EveryAllowedFlagIsOneThisEngineAccepts) {
  TempDir dir;
  testing::WriteFile(dir.path() / "t.jinja", "{{ messages }}", 0644);
  testing::WriteFile(dir.path() / "g.gbnf", "root ::= \"a\"", 0644);
  testing::WriteFile(dir.path() / "s.json", "{}", 0644);
  std::vector<std::string> args = {"llama-server"};
  for (const FlagSpec& spec : LlamaServerFlags().allowed) {
    for (std::string_view name : spec.names) {
      args.emplace_back(name);
      for (std::string& v : SampleValues(spec, dir.path())) args.push_back(std::move(v));
    }
  }
  args.push_back("--list-devices");
  SandboxMounts mounts;
  mounts.readonly = {dir.path()};
  SpawnOptions spawn;
  spawn.argv = RealEngine().Command(args, mounts);
  auto process = Process::Spawn(spawn);
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       (*process)->Running() && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
  }
  (*process)->Terminate();
  auto lines = (*process)->output().Tail(50);
  EXPECT_EQ(*(*process)->ExitStatus(), 0) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Contains(lines, "Available devices")) << ::testing::PrintToString(lines);
}

TEST(RealEngine, VersionThroughCommandAndSpawn) {
  TempDir dir;
  auto lines =
      RunToEnd(RealEngine().Command({"llama-server", "--version"}, {{dir.path()}, {}, {}}));
  EXPECT_TRUE(Contains(lines, "version: ")) << ::testing::PrintToString(lines);
}

// Starts llama-server in router mode (it needs no model, which is all these
// tests have) on `socket_path`, inside `dir`, and waits until /health answers.
std::unique_ptr<Process> StartRouter(const EngineLocation& location,
                                     const std::filesystem::path& dir,
                                     const std::filesystem::path& socket_path) {
  std::filesystem::create_directories(dir / "models");
  SpawnOptions options;
  options.argv = location.Command(
      {"llama-server", "--host", socket_path.string(), "--models-dir", (dir / "models").string()},
      {{dir}, {}, {}});
  auto process = Process::Spawn(options);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  if (!process.ok()) return nullptr;
  std::string response;
  // 503 while the server is still starting; wait for its 200.
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       response.rfind("HTTP/1.1 200", 0) != 0 && std::chrono::steady_clock::now() < deadline &&
       (*process)->Running();) {
    std::this_thread::sleep_for(50ms);
    if (std::filesystem::exists(socket_path)) response = GetHealth(socket_path);
  }
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u)
      << response << ::testing::PrintToString((*process)->output().Tail(20));
  return std::move(process).value();
}

bool WaitNoneMentioning(const std::string& needle, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!PidsMentioning(needle).empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

TEST(RealEngine, ServesOnAUnixSocketInABoundDirAndDiesWithTerminate) {
  TempDir dir;
  auto socket_path = dir.path() / "engine.sock";
  auto process = StartRouter(RealEngine(), dir.path(), socket_path);
  ASSERT_TRUE(process);
  EXPECT_FALSE(PidsMentioning(socket_path.string()).empty());
  process->Terminate(5s);
  EXPECT_TRUE(PidsMentioning(socket_path.string()).empty()) << "the engine outlived Terminate";
}

// The rest look inside the sandbox itself, so they need the rootfs engine.
TEST(RealEngine, EnvironmentReachesTheSandbox) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << "engine is not the rootfs";
  location.binary = "/usr/bin/env";
  auto lines = RunToEnd(location.Command({"env"}, {}), {"GGML_VK_VISIBLE_DEVICES=0"});
  EXPECT_TRUE(Contains(lines, "GGML_VK_VISIBLE_DEVICES=0")) << ::testing::PrintToString(lines);
}

TEST(RealEngine, SandboxIsReadOnlyExceptBoundDirs) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << "engine is not the rootfs";
  TempDir rw, ro;
  location.binary = "/bin/sh";
  std::string script = "touch /usr/zest-probe 2>/dev/null; echo usr=$?; touch " +
                       (rw.path() / "ok").string() + "; echo rw=$?; touch " +
                       (ro.path() / "no").string() + " 2>/dev/null; echo ro=$?";
  auto lines = RunToEnd(location.Command({"sh", "-c", script}, {{rw.path()}, {ro.path()}, {}}));
  EXPECT_EQ(lines, (std::vector<std::string>{"usr=1", "rw=0", "ro=1"}));
  EXPECT_TRUE(std::filesystem::exists(rw.path() / "ok"));
  EXPECT_FALSE(std::filesystem::exists(location.rootfs / "usr/zest-probe"));
}

}  // namespace
}  // namespace zest::engines

namespace zest::engines {
namespace {

// The sandbox's own guarantee, without the process-group kill: SIGKILL to
// bwrap alone must take llama-server down (--unshare-pid --die-with-parent).
TEST(RealEngine, KillingBwrapAloneTakesTheEngineDown) {
  EngineLocation location = RealEngine();
  if (location.source != EngineSource::kRootfs) GTEST_SKIP() << "engine is not the rootfs";
  TempDir dir;
  auto socket_path = dir.path() / "engine.sock";
  auto process = StartRouter(location, dir.path(), socket_path);
  ASSERT_TRUE(process);
  ASSERT_EQ(kill(process->pid(), SIGKILL), 0);
  bool gone = WaitNoneMentioning(socket_path.string(), 5s);
  EXPECT_TRUE(gone) << "llama-server outlived bwrap";
  for (pid_t pid : PidsMentioning(socket_path.string()))
    kill(pid, SIGKILL);  // do not leak on failure
}

}  // namespace
}  // namespace zest::engines
