#include "engines/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>

#include "engines/process_memory.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

using namespace std::chrono_literals;
using testing::ProcessGone;
using testing::TempDir;
using testing::WaitGone;

SpawnOptions Options(std::vector<std::string> argv, std::vector<std::string> env = {},
                     std::filesystem::path log_file = {}, std::size_t ring_lines = 200) {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.env = std::move(env);
  options.log_file = std::move(log_file);
  options.ring_lines = ring_lines;
  return options;
}

std::unique_ptr<Process> MustSpawn(const SpawnOptions& options) {
  auto result = Process::Spawn(options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? std::move(result).value() : nullptr;
}

std::unique_ptr<Process> Shell(const std::string& script) {
  return MustSpawn(Options({"sh", "-c", script}));
}

// The first output line, once the child has printed one (e.g. a pid).
std::string FirstLine(const Process& process, std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto lines = process.output().Tail(1000);
    if (!lines.empty()) return lines.front();
    std::this_thread::sleep_for(5ms);
  }
  return "";
}

bool WaitExited(Process& process, std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (process.Running()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

TEST(Process, OutputReachesTheRingAndTheLogFile) {
  TempDir dir;
  auto log = dir.path() / "engine.log";
  auto process = MustSpawn(Options({"sh", "-c", "echo one; echo two >&2; printf three"}, {}, log));
  ASSERT_TRUE(process);
  ASSERT_TRUE(WaitExited(*process));
  process->Terminate();
  EXPECT_EQ(process->output().Tail(10), (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(testing::ReadFile(log), "one\ntwo\nthree");
  struct stat st {};
  ASSERT_EQ(stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(Process, RingKeepsOnlyTheLastLines) {
  auto process =
      MustSpawn(Options({"sh", "-c", "for i in 1 2 3 4 5; do echo $i; done"}, {}, {}, 2));
  ASSERT_TRUE(process);
  ASSERT_TRUE(WaitExited(*process));
  process->Terminate();
  EXPECT_EQ(process->output().Tail(10), (std::vector<std::string>{"4", "5"}));
}

TEST(Process, EnvironmentIsInheritedAndExtended) {
  setenv("ZEST_INHERITED", "from-parent", 1);
  auto process =
      MustSpawn(Options({"sh", "-c", "echo $ZEST_INHERITED $ZEST_ADDED; read x; echo stdin=$?"},
                        {"ZEST_ADDED=from-options", "ZEST_INHERITED=overridden"}));
  unsetenv("ZEST_INHERITED");
  ASSERT_TRUE(process);
  ASSERT_TRUE(WaitExited(*process));
  process->Terminate();
  // stdin is /dev/null: `read` sees EOF at once instead of hanging.
  EXPECT_EQ(process->output().Tail(10),
            (std::vector<std::string>{"overridden from-options", "stdin=1"}));
}

// The cap is the kernel's: the child's own `ulimit -v` (KiB) shows it, and
// an allocation past it fails in the child (head's 512 MiB buffer).
TEST(Process, AnAddressSpaceCapHoldsInTheChild) {
  SpawnOptions capped = Options(
      {"sh", "-c",
       "ulimit -v; head -c 1 /dev/zero | dd bs=512M count=1 status=none of=/dev/null; echo rc=$?"});
  capped.max_address_space = uint64_t{256} << 20;
  auto process = MustSpawn(capped);
  ASSERT_TRUE(process);
  ASSERT_TRUE(WaitExited(*process));
  process->Terminate();
  std::vector<std::string> lines = process->output().Tail(10);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "262144");
  EXPECT_NE(lines.back(), "rc=0") << "dd's 512 MiB buffer fit under a 256 MiB cap";

  auto open = Shell(
      "ulimit -v; head -c 1 /dev/zero | dd bs=512M count=1 status=none of=/dev/null; echo rc=$?");
  ASSERT_TRUE(open);
  ASSERT_TRUE(WaitExited(*open));
  open->Terminate();
  EXPECT_EQ(open->output().Tail(10).front(), "unlimited");
  EXPECT_EQ(open->output().Tail(10).back(), "rc=0");
}

TEST(Process, ExecFailureIsAnError) {
  auto missing = Process::Spawn(Options({"/nonexistent/zest-no-such-engine"}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kEngineFailed);
  EXPECT_EQ(missing.status().message(),
            "/nonexistent/zest-no-such-engine: No such file or directory");

  auto not_on_path = Process::Spawn(Options({"zest-no-such-engine"}));
  ASSERT_FALSE(not_on_path.ok());
  EXPECT_EQ(not_on_path.status().message(), "zest-no-such-engine: No such file or directory");

  TempDir dir;
  testing::WriteFile(dir.path() / "plain", "#!/bin/sh\n", 0644);
  auto not_executable = Process::Spawn(Options({(dir.path() / "plain").string()}));
  ASSERT_FALSE(not_executable.ok());
  EXPECT_NE(not_executable.status().message().find("Permission denied"), std::string::npos);
}

TEST(Process, UnopenableLogFileIsAnError) {
  auto result = Process::Spawn(Options({"true"}, {}, "/nonexistent/dir/engine.log"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("/nonexistent/dir/engine.log"), std::string::npos);
}

TEST(Process, ReportsTheExitStatus) {
  auto process = Shell("exit 3");
  ASSERT_TRUE(process);
  ASSERT_TRUE(WaitExited(*process));
  std::optional<int> first = process->ExitStatus();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(Process::DescribeExit(*first), "exited with code 3");
  // Reaped once: asking again gives the remembered status, not nothing.
  std::optional<int> again = process->ExitStatus();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *first);
}

TEST(Process, RunsInItsOwnProcessGroup) {
  auto process = MustSpawn(Options({"sleep", "100"}));
  ASSERT_TRUE(process);
  EXPECT_EQ(getpgid(process->pid()), process->pid());
  process->Terminate();
  EXPECT_EQ(Process::DescribeExit(*process->ExitStatus()), "killed by signal 15");
}

TEST(Process, TerminateKillsGrandchildrenThatIgnoreSigterm) {
  // The grandchild ignores SIGTERM; the shell dies of it, and the group's
  // SIGKILL on reaping takes the grandchild with it.
  auto process = Shell("(trap '' TERM; exec sleep 100) & echo $!; wait");
  ASSERT_TRUE(process);
  pid_t grandchild = std::stoi(FirstLine(*process));
  ASSERT_FALSE(ProcessGone(grandchild));
  auto start = std::chrono::steady_clock::now();
  process->Terminate(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_TRUE(WaitGone(grandchild, 2s));
  if (!ProcessGone(grandchild)) kill(grandchild, SIGKILL);  // do not leak on failure
}

TEST(Process, ChildTrappingSigtermIsKilledAfterTheGrace) {
  auto process = Shell("trap '' TERM; echo ready; sleep 100");
  ASSERT_TRUE(process);
  ASSERT_EQ(FirstLine(*process), "ready");
  auto start = std::chrono::steady_clock::now();
  process->Terminate(300ms);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 3s);
  EXPECT_EQ(Process::DescribeExit(*process->ExitStatus()), "killed by signal 9");
  process->Terminate();  // idempotent
}

TEST(Process, SignalDispositionsAndMaskAreReset) {
  // zest ignoring or blocking SIGTERM must not make engines immune to it.
  struct sigaction ignore {
  }, old_action{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &old_action);
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old_mask);
  auto process = MustSpawn(Options({"sleep", "100"}));
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGTERM, &old_action, nullptr);
  ASSERT_TRUE(process);
  process->Terminate(5s);
  EXPECT_EQ(Process::DescribeExit(*process->ExitStatus()), "killed by signal 15");
}

TEST(Process, TerminateDoesNotHangOnAnEscapedPipeHolder) {
  // setsid leaves the group, so nothing kills it, and it keeps the pipe open.
  auto process = Shell("setsid sleep 100 & echo $!; wait");
  ASSERT_TRUE(process);
  pid_t escaped = std::stoi(FirstLine(*process));
  auto start = std::chrono::steady_clock::now();
  process->Terminate(1s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
  kill(escaped, SIGKILL);
  EXPECT_TRUE(WaitGone(escaped, 2s));
}

TEST(Process, DestructorTerminates) {
  pid_t pid;
  {
    auto process = MustSpawn(Options({"sleep", "100"}));
    ASSERT_TRUE(process);
    pid = process->pid();
  }
  EXPECT_TRUE(ProcessGone(pid));
}

TEST(Process, ChildDiesWithItsParent) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    // The "zest" that dies without cleaning up: no destructor runs.
    close(fds[0]);
    auto process = Process::Spawn(Options({"sleep", "100"}));
    pid_t pid = process.ok() ? (*process)->pid() : -1;
    ssize_t ignored = write(fds[1], &pid, sizeof(pid));
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  pid_t sleeper = -1;
  ASSERT_EQ(read(fds[0], &sleeper, sizeof(sleeper)), static_cast<ssize_t>(sizeof(sleeper)));
  close(fds[0]);
  waitpid(middle, nullptr, 0);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(WaitGone(sleeper, 5s)) << "pid " << sleeper << " outlived its parent";
  if (!ProcessGone(sleeper)) kill(sleeper, SIGKILL);
}

}  // namespace
}  // namespace zest::engines

namespace zest::engines {
namespace {

// A shell that starts a child which allocates and touches 64 MiB: the tree's
// RSS includes the grandchild's pages; a gone pid measures 0.
TEST(ProcessMemory, TreeRssCountsDescendants) {
  SpawnOptions options;
  options.argv = {"/bin/sh", "-c",
                  "python3 -c 'import time; b = bytearray(64 << 20); time.sleep(30)' & wait"};
  auto process = Process::Spawn(options);
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  uint64_t rss = 0;
  for (int i = 0; i < 300 && rss < (64u << 20); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    rss = ProcessTreeRssBytes((*process)->pid());
  }
  EXPECT_GE(rss, 64u << 20);
  EXPECT_LT(rss, 256u << 20);
  const pid_t pid = (*process)->pid();
  (*process)->Terminate();
  EXPECT_EQ(ProcessTreeRssBytes(pid), 0u);
}

}  // namespace
}  // namespace zest::engines
