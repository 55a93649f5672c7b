// Process: a supervised child (an engine). Started in its own process group
// with PR_SET_PDEATHSIG(SIGKILL), so it dies with zest even on SIGKILL;
// stdout and stderr are read by a thread owned by the Process into a LineRing
// and appended to a log file.
//
// Thread-safe. Destroying a Process terminates it (SIGTERM to the group,
// then SIGKILL after the grace period) and reaps it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "core/ring_buffer.h"

namespace zest::engines {

struct SpawnOptions {
  std::vector<std::string> argv;          // argv[0] is looked up on PATH
  std::vector<std::string> env;           // "K=V" added to the inherited environment
  std::filesystem::path log_file;         // appended to; empty = none
  std::size_t ring_lines = 200;
};

class Process {
 public:
  // Forks and execs. An exec failure (no such binary) is an error here.
  static Result<std::unique_ptr<Process>> Spawn(const SpawnOptions& options);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  // Non-blocking: the wait status once the child has exited (reaps it).
  std::optional<int> ExitStatus();
  bool Running() { return !ExitStatus().has_value(); }
  // "exited with code 1" / "killed by signal 9".
  static std::string DescribeExit(int wait_status);
  // SIGTERM to the process group, wait up to `grace`, then SIGKILL; blocks
  // until reaped. Idempotent.
  void Terminate(std::chrono::milliseconds grace = std::chrono::seconds(5));

  // The child's most recent output lines (stdout and stderr interleaved).
  const LineRing& output() const { return *output_; }

 private:
  Process(pid_t pid, int output_fd, std::unique_ptr<LineRing> ring, std::filesystem::path log_file);
  void ReadOutput(int fd, std::filesystem::path log_file);

  const pid_t pid_;
  std::unique_ptr<LineRing> output_;
  std::mutex mu_;
  std::optional<int> exit_status_;  // guarded by mu_
  std::jthread reader_;
};

}  // namespace zest::engines
