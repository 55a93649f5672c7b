#include "engines/pid_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "engines/process.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testing::TempDir;
using testing::WaitGone;

std::unique_ptr<Process> Spawn(std::vector<std::string> argv, const fs::path& pid_dir) {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.pid_dir = pid_dir;
  auto result = Process::Spawn(options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? std::move(result).value() : nullptr;
}

// A pid that named a process a moment ago and names none now.
pid_t DeadPid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

// Rewrites `pid`'s file as if the zest that started it had died.
void OrphanRecord(const fs::path& dir, pid_t pid) {
  auto record = ReadPidFile(PidFilePath(dir, pid));
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  record->owner_pid = DeadPid();
  ASSERT_TRUE(WritePidFile(dir, *record).ok());
}

ReapedEngine OnlyResult(const fs::path& dir, std::chrono::milliseconds grace = 2s) {
  auto reaped = ReapStaleEngines(dir, grace);
  EXPECT_EQ(reaped.size(), 1u);
  return reaped.empty() ? ReapedEngine{} : reaped.front();
}

TEST(PidFile, StartTicksNameOneProcess) {
  auto mine = ProcessStartTicks(getpid());
  ASSERT_TRUE(mine.ok());
  EXPECT_GT(*mine, 0u);
  EXPECT_FALSE(ProcessStartTicks(DeadPid()).ok());
  auto argv = ProcessCommandLine(getpid());
  ASSERT_TRUE(argv.ok());
  EXPECT_FALSE(argv->empty());
}

TEST(PidFile, SpawnRecordsTheChildAndReapingRemovesTheFile) {
  TempDir dir;
  fs::path pids = dir.path() / "engines";
  auto child = Spawn({"sleep", "30"}, pids);
  ASSERT_NE(child, nullptr);
  fs::path file = PidFilePath(pids, child->pid());
  auto record = ReadPidFile(file);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->pid, child->pid());
  EXPECT_EQ(record->start_ticks, *ProcessStartTicks(child->pid()));
  EXPECT_EQ(record->argv, (std::vector<std::string>{"sleep", "30"}));
  EXPECT_EQ(record->owner_pid, getpid());
  EXPECT_EQ(fs::status(pids).permissions() & fs::perms::all, fs::perms::owner_all);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  child->Terminate(2s);
  EXPECT_FALSE(fs::exists(file));
}

TEST(PidFile, AChildThatExitsByItselfLeavesNoFile) {
  TempDir dir;
  auto child = Spawn({"sh", "-c", "sleep 0.2"}, dir.path());
  ASSERT_NE(child, nullptr);
  fs::path file = PidFilePath(dir.path(), child->pid());
  EXPECT_TRUE(fs::exists(file));
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (child->Running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(fs::exists(file));
}

TEST(PidFile, AnEngineWhoseZestDiedIsTerminatedWithItsGroup) {
  TempDir dir;
  // The shell's own child (sleep) is in the engine's group: it must go too.
  auto child = Spawn({"sh", "-c", "sleep 30 & echo $!; wait"}, dir.path());
  ASSERT_NE(child, nullptr);
  OrphanRecord(dir.path(), child->pid());
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (child->output().Tail(1).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_FALSE(child->output().Tail(1).empty());
  pid_t grandchild = std::stoi(child->output().Tail(1).front());
  ReapedEngine reaped = OnlyResult(dir.path());
  EXPECT_EQ(reaped.outcome, ReapedEngine::Outcome::kKilled) << OutcomeName(reaped.outcome);
  EXPECT_FALSE(reaped.forced);
  EXPECT_EQ(reaped.record.pid, child->pid());
  EXPECT_TRUE(WaitGone(child->pid(), 2s));
  EXPECT_TRUE(WaitGone(grandchild, 2s));
  auto status = child->ExitStatus();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(Process::DescribeExit(*status), "killed by signal 15");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(PidFile, AnEngineThatIgnoresSigtermIsKilledAfterTheGrace) {
  TempDir dir;
  auto child =
      Spawn({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, dir.path());
  ASSERT_NE(child, nullptr);
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (child->output().Tail(1).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  OrphanRecord(dir.path(), child->pid());
  auto started = std::chrono::steady_clock::now();
  ReapedEngine reaped = OnlyResult(dir.path(), 300ms);
  EXPECT_EQ(reaped.outcome, ReapedEngine::Outcome::kKilled) << OutcomeName(reaped.outcome);
  EXPECT_TRUE(reaped.forced);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 300ms);
  EXPECT_TRUE(WaitGone(child->pid(), 2s));
  EXPECT_FALSE(fs::exists(PidFilePath(dir.path(), child->pid())));
}

TEST(PidFile, AnEngineWhoseZestStillRunsIsLeftAlone) {
  TempDir dir;
  auto child = Spawn({"sleep", "30"}, dir.path());  // owner: this test process
  ASSERT_NE(child, nullptr);
  ReapedEngine reaped = OnlyResult(dir.path());
  EXPECT_EQ(reaped.outcome, ReapedEngine::Outcome::kOwnerAlive) << OutcomeName(reaped.outcome);
  EXPECT_TRUE(child->Running());
  EXPECT_TRUE(fs::exists(PidFilePath(dir.path(), child->pid())));
}

TEST(PidFile, AReusedPidIsNotKilled) {
  TempDir dir;
  auto child = Spawn({"sleep", "30"}, dir.path());
  ASSERT_NE(child, nullptr);
  fs::path file = PidFilePath(dir.path(), child->pid());
  // The same pid with another start time: some later process got the pid.
  auto record = ReadPidFile(file);
  ASSERT_TRUE(record.ok());
  record->owner_pid = DeadPid();
  record->start_ticks -= 1;
  ASSERT_TRUE(WritePidFile(dir.path(), *record).ok());
  EXPECT_EQ(OnlyResult(dir.path()).outcome, ReapedEngine::Outcome::kReused);
  EXPECT_TRUE(child->Running());
  EXPECT_FALSE(fs::exists(file));
  // The same start time but another command line.
  record->start_ticks += 1;
  record->argv = {"llama-server", "--port", "1"};
  ASSERT_TRUE(WritePidFile(dir.path(), *record).ok());
  EXPECT_EQ(OnlyResult(dir.path()).outcome, ReapedEngine::Outcome::kReused);
  EXPECT_TRUE(child->Running());
}

TEST(PidFile, FilesOfGoneProcessesAndGarbageAreRemoved) {
  TempDir dir;
  PidRecord gone;
  gone.pid = DeadPid();
  gone.start_ticks = 1;
  gone.argv = {"llama-server"};
  gone.owner_pid = DeadPid();
  ASSERT_TRUE(WritePidFile(dir.path(), gone).ok());
  EXPECT_EQ(OnlyResult(dir.path()).outcome, ReapedEngine::Outcome::kGone);
  testing::WriteFile(dir.path() / "7.json", "{not json", 0600);
  EXPECT_EQ(OnlyResult(dir.path()).outcome, ReapedEngine::Outcome::kUnreadable);
  EXPECT_TRUE(fs::is_empty(dir.path()));
  EXPECT_TRUE(ReapStaleEngines(dir.path() / "missing", 1s).empty());
}

}  // namespace
}  // namespace zest::engines
