// The sandboxes, run for real: bash stands in for the engine (the host's
// own, through the host-system sandbox a system llama-server gets, in the
// bridge's sandbox with the engine's inside, and in FastFlowLM's wider
// view), and looks around from inside.
// tests/integration/sandbox.test.mjs does the same from inside a real
// llama-server that zest started.
#include "engines/sandbox.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "core/testing/requirements.h"
#include "engines/bridged_command.h"
#include "engines/engine_locator.h"
#include "engines/path_search.h"
#include "engines/process.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::TempDir;
using testing::WriteFile;

// A listening TCP socket on 127.0.0.1, standing in for zest's port.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Runs `argv` (a sandbox's command and bash after it) with `env`; its
// output lines.
std::vector<std::string> RunArgv(const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.env = env;
  spawn.clear_env = true;
  auto process = Process::Spawn(spawn);
  EXPECT_TRUE(process.ok()) << process.status().ToString();
  if (!process.ok()) return {};
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       (*process)->Running() && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
  }
  (*process)->Terminate(500ms);
  return (*process)->output().Tail(100);
}

std::optional<fs::path> Bwrap() { return FindOnPath("/usr/bin:/bin", "bwrap"); }

// Runs `script` in bash inside the engine sandbox; its output lines.
std::vector<std::string> RunInside(const std::string& script, const SandboxMounts& mounts,
                                   const std::vector<std::string>& env) {
  EngineLocation location;
  location.source = EngineSource::kConfigured;
  location.binary = "/bin/bash";
  location.bwrap = Bwrap().value_or(fs::path());
  return RunArgv(location.Command({"bash", "-c", script}, mounts), env);
}

// Runs `script` in bash inside a sandbox with the host's view `view`.
std::vector<std::string> RunInView(SandboxView view, const std::string& script,
                                   const SandboxMounts& mounts) {
  SandboxSpec spec;
  spec.bwrap = Bwrap().value_or(fs::path());
  spec.view = view;
  spec.mounts = mounts;
  std::vector<std::string> argv = SandboxCommand(spec);
  argv.insert(argv.end(), {"/bin/bash", "-c", script});
  return RunArgv(argv, {"PATH=/usr/bin:/bin"});
}

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST(Sandbox, AnEngineSeesOnlyItsOwnFilesNoNetworkAndNoSecrets) {
  ZEST_REQUIRE(Bwrap(), "bubblewrap (/usr/bin/bwrap)");
  TempDir home, run;
  WriteFile(home.path() / "keys.json", "secret", 0600);
  WriteFile(home.path() / "models/m.gguf", "weights", 0644);
  fs::create_directories(run.path() / "engine-1");
  Listener zest_port;
  SandboxMounts mounts;
  mounts.writable = {run.path() / "engine-1"};
  mounts.readonly = {home.path() / "models/m.gguf"};
  mounts.hidden = {home.path()};
  setenv("ZEST_API_KEY", "zk-must-not-leak", 1);
  std::vector<std::string> env = EngineEnvironment(
      [](const std::string& name) -> std::optional<std::string> {
        if (const char* v = getenv(name.c_str())) return std::string(v);
        return std::nullopt;
      },
      {"LP_NUM_THREADS=2"});
  unsetenv("ZEST_API_KEY");
  const std::string h = home.path().string();
  const std::string script = "cat " + h +
                             "/keys.json >/dev/null 2>&1 && echo keys=read || echo keys=hidden; "
                             "cat " +
                             h +
                             "/models/m.gguf; echo; "
                             "(echo more >> " +
                             h +
                             "/models/m.gguf) 2>/dev/null && echo model=writable || echo "
                             "model=readonly; touch " +
                             h +
                             "/models/x 2>/dev/null; "
                             "touch " +
                             (run.path() / "engine-1/s").string() +
                             " && echo run=writable; "
                             "(echo > /dev/tcp/127.0.0.1/" +
                             std::to_string(zest_port.port()) +
                             ") 2>/dev/null && echo tcp=reached || echo tcp=refused; "
                             "env | grep -c '^ZEST_\\|^HF_' | sed 's/^/secrets=/'; "
                             "echo lp=$LP_NUM_THREADS; "
                             "readlink /proc/self/ns/net";
  auto lines = RunInside(script, mounts, env);
  EXPECT_TRUE(Has(lines, "keys=hidden")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines, "weights")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines, "model=readonly")) << ::testing::PrintToString(lines);
  // What it writes beside its files lands in its own tmpfs, not on the host.
  EXPECT_FALSE(fs::exists(home.path() / "models/x"));
  EXPECT_TRUE(Has(lines, "run=writable")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines, "tcp=refused")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines, "secrets=0")) << ::testing::PrintToString(lines);
  EXPECT_TRUE(Has(lines, "lp=2")) << ::testing::PrintToString(lines);
  std::error_code ec;
  std::string ours = fs::read_symlink("/proc/self/ns/net", ec).string();
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(lines.back().starts_with("net:[")) << lines.back();
  EXPECT_NE(lines.back(), ours) << "the engine shares zest's network namespace";
  // Outside the sandbox the same probe reaches the port: the check can fail.
  SpawnOptions bare;
  bare.argv = {
      "/bin/bash", "-c",
      "(echo > /dev/tcp/127.0.0.1/" + std::to_string(zest_port.port()) + ") && echo tcp=reached"};
  auto process = Process::Spawn(bare);
  ASSERT_TRUE(process.ok());
  while ((*process)->Running()) std::this_thread::sleep_for(10ms);
  (*process)->Terminate(500ms);
  EXPECT_TRUE(Has((*process)->output().Tail(10), "tcp=reached"));
}

// The outer sandbox of a TCP-only engine (BridgeSandbox), and the engine's
// own inside it, as BridgedCommand nests them (bash in place of the bridge
// and of the engine). Outside: nothing writable but the socket's
// directory, none of the host's other files, zest's home hidden but the
// model file, no way out to the network, and as root CAP_SYS_ADMIN alone
// (bit 21). Inside: the engine's usual sandbox still builds with that one
// capability, and holds none.
TEST(Sandbox, BridgeSandboxHoldsTheEnginesSandboxWithOneCapabilityToSpare) {
  ZEST_REQUIRE(Bwrap(), "bubblewrap (/usr/bin/bwrap)");
  TempDir home, run, elsewhere;
  WriteFile(home.path() / "keys.json", "secret", 0600);
  WriteFile(home.path() / "models/m.bin", "weights", 0644);
  WriteFile(elsewhere.path() / "notes", "host", 0644);
  fs::create_directories(run.path() / "engine-1");
  Listener zest_port;
  EngineLocation engine;
  engine.source = EngineSource::kConfigured;
  engine.binary = "/bin/bash";
  engine.bwrap = *Bwrap();
  LaunchSpec spec;
  spec.hidden = {home.path()};
  spec.socket = run.path() / "engine-1/engine.sock";
  spec.model_files = {home.path() / "models/m.bin"};
  const std::string h = home.path().string();
  const std::string look = "grep CapEff /proc/self/status; test -e " + h +
                           "/keys.json && echo keys=seen || echo keys=hidden; cat " + h +
                           "/models/m.bin; echo; test -e " + (elsewhere.path() / "notes").string() +
                           " && echo host=seen || echo host=unseen; (echo > "
                           "/dev/tcp/127.0.0.1/" +
                           std::to_string(zest_port.port()) +
                           ") 2>/dev/null && echo tcp=reached || echo tcp=refused; ";
  std::vector<std::string> outer =
      SandboxCommand(BridgeSandbox(engine, spec, fs::canonical("/proc/self/exe")));

  std::vector<std::string> argv = outer;
  argv.insert(argv.end(),
              {"/bin/bash", "-c",
               look + "touch " + (run.path() / "engine-1/s").string() + " && echo run=writable"});
  auto lines = RunArgv(argv, {"PATH=/usr/bin:/bin"});
  const std::string caps = ::geteuid() == 0 ? "0000000000200000" : "0000000000000000";
  for (const std::string& line :
       {"CapEff:\t" + caps, std::string("keys=hidden"), std::string("weights"),
        std::string("host=unseen"), std::string("tcp=refused"), std::string("run=writable")}) {
    EXPECT_TRUE(Has(lines, line)) << line << " in " << ::testing::PrintToString(lines);
  }
  EXPECT_TRUE(fs::exists(run.path() / "engine-1/s"));

  SandboxMounts mounts;
  mounts.hidden = spec.hidden;
  mounts.readonly = spec.model_files;
  argv = outer;
  std::vector<std::string> inner =
      engine.Command({"bash", "-c", look + "echo inner=ran"}, mounts, /*own_network=*/false);
  argv.insert(argv.end(), inner.begin(), inner.end());
  lines = RunArgv(argv, {"PATH=/usr/bin:/bin"});
  for (const char* line : {"CapEff:\t0000000000000000", "keys=hidden", "weights", "host=unseen",
                           "tcp=refused", "inner=ran"}) {
    EXPECT_TRUE(Has(lines, line)) << line << " in " << ::testing::PrintToString(lines);
  }
}

// FastFlowLM's: the host's files writable (its models under $HOME), zest's
// home still hidden, the network still its own.
TEST(Sandbox, HostWritableViewStillHidesZestsHomeAndTheNetwork) {
  ZEST_REQUIRE(Bwrap(), "bubblewrap (/usr/bin/bwrap)");
  TempDir home, elsewhere;
  WriteFile(home.path() / "keys.json", "secret", 0600);
  Listener zest_port;
  SandboxMounts mounts;
  mounts.hidden = {home.path()};
  const std::string script = "test -e " + home.path().string() +
                             "/keys.json && echo keys=seen || echo keys=hidden; " + "touch " +
                             (elsewhere.path() / "x").string() + " && echo host=writable; " +
                             "(echo > /dev/tcp/127.0.0.1/" + std::to_string(zest_port.port()) +
                             ") 2>/dev/null && echo tcp=reached || echo tcp=refused";
  auto lines = RunInView(SandboxView::kHostWritable, script, mounts);
  for (const char* line : {"keys=hidden", "host=writable", "tcp=refused"}) {
    EXPECT_TRUE(Has(lines, line)) << line << " in " << ::testing::PrintToString(lines);
  }
  EXPECT_TRUE(fs::exists(elsewhere.path() / "x"));
  EXPECT_TRUE(fs::exists(home.path() / "keys.json"));  // hidden, not removed
}

// A llama-server found in a user's ~/.local/bin (or ~/bin) runs from its
// own directory and sees neither zest's home (~/.local/share/zest, which
// the prefix ~/.local holds) nor the rest of $HOME: a stand-in engine there
// tries to read keys.json and the user's other files.
TEST(Sandbox, AnEngineInTheUsersHomeSeesNeitherZestsHomeNorTheUsers) {
  ZEST_REQUIRE(Bwrap(), "bubblewrap (/usr/bin/bwrap)");
  TempDir user;
  const fs::path zest_home = user.path() / ".local/share/zest";
  WriteFile(zest_home / "keys.json", "zest-secret", 0600);
  WriteFile(user.path() / ".ssh/id_ed25519", "user-secret", 0600);
  WriteFile(user.path() / ".local/lib/libengine.so", "library", 0644);
  const std::string probe =
      "#!/bin/sh\ncat " + (zest_home / "keys.json").string() +
      " 2>/dev/null || echo keys=hidden\ncat " + (user.path() / ".ssh/id_ed25519").string() +
      " 2>/dev/null || echo user=hidden\ncat " +
      (user.path() / ".local/lib/libengine.so").string() + "; echo\necho engine=ran\n";
  const char* saved = getenv("HOME");
  const std::string saved_home = saved ? saved : "";
  setenv("HOME", user.path().c_str(), 1);
  for (const char* dir : {".local/bin", "bin"}) {
    EngineLocation location;
    location.source = EngineSource::kConfigured;
    location.binary = user.path() / dir / "llama-server";
    location.bwrap = Bwrap().value_or(fs::path());
    WriteFile(location.binary, probe, 0755);
    SandboxMounts mounts;
    mounts.hidden = {zest_home};
    auto lines = RunArgv(location.Command({"llama-server"}, mounts), {"PATH=/usr/bin:/bin"});
    const std::string seen = std::string(dir) + ": " + ::testing::PrintToString(lines);
    EXPECT_TRUE(Has(lines, "engine=ran")) << seen;
    EXPECT_TRUE(Has(lines, "keys=hidden")) << seen;
    EXPECT_TRUE(Has(lines, "user=hidden")) << seen;
    EXPECT_FALSE(Has(lines, "zest-secret")) << seen;
    EXPECT_FALSE(Has(lines, "user-secret")) << seen;
    // The install prefix's libraries still show for ~/.local/bin.
    if (std::string(dir) == ".local/bin") {
      EXPECT_TRUE(Has(lines, "library")) << seen;
    }
  }
  if (saved) {
    setenv("HOME", saved_home.c_str(), 1);
  } else {
    unsetenv("HOME");
  }
}

TEST(Sandbox, EnvironmentIsAnAllowList) {
  auto env = EngineEnvironment(
      [](const std::string& name) -> std::optional<std::string> {
        if (name == "GGML_VK_VISIBLE_DEVICES") return "0";
        return "leaked-" + name;  // every other variable is set too
      },
      {"LP_NUM_THREADS=3"});
  std::vector<std::string> expected = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp",
                                       "LANG=C.UTF-8", "GGML_VK_VISIBLE_DEVICES=0"};
  for (const std::string& name : PassedEnvironment()) {
    if (name != "GGML_VK_VISIBLE_DEVICES") expected.push_back(name + "=leaked-" + name);
  }
  expected.push_back("LP_NUM_THREADS=3");
  EXPECT_EQ(env, expected);
  for (const std::string& kv : env) {
    EXPECT_FALSE(kv.starts_with("ZEST_") || kv.starts_with("HF_")) << kv;
  }
}

}  // namespace
}  // namespace zest::engines
