// Process: a supervised child (an engine). Started in its own process group
// with PR_SET_PDEATHSIG(SIGKILL), so it dies with zest even on SIGKILL;
// stdout and stderr are read by a thread owned by the Process into a LineRing
// and appended to a log file.
//
// Thread-safe. Destroying a Process terminates it (SIGTERM to the group,
// then SIGKILL after the grace period) and reaps it.
//
// Call Spawn from a long-lived thread: Linux delivers PR_SET_PDEATHSIG when
// the *thread* that forked the child exits, not the process, so a child
// spawned from a short-lived worker thread is killed when that thread ends.
// The Process reaps its own child with waitpid(pid); nothing else in zest may
// reap it (no waitpid(-1), no SIGCHLD set to SIG_IGN).
//
// With SpawnOptions::pid_dir set, a pid file records the child from spawn
// until it is reaped, so a later zest can stop it if this one is killed
// before it could (pid_file.h).
//
// When the child itself (the group leader) exits, whatever is left in its
// process group is SIGKILLed before the leader is reaped: an engine's helpers
// never outlive it, and the group id is still ours at that moment.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "core/result.h"
#include "core/ring_buffer.h"

namespace zest::engines {

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH unless it has a '/'
  std::vector<std::string> env;   // "K=V" added to the inherited environment
  // The child gets `env` alone, nothing of ours: engines must not see
  // zest's secrets (ZEST_API_KEY, HF_TOKEN) or settings.
  bool clear_env = false;
  std::filesystem::path log_file;  // appended to (created 0600); empty = none
  std::size_t ring_lines = 200;
  // Where the child's pid file goes (pid_file.h) while it runs; empty = none.
  std::filesystem::path pid_dir;
  // > 0: the child's address space (RLIMIT_AS) is capped at this many bytes,
  // so an allocation past it fails in the child instead of taking the
  // host's memory. For converters (ffmpeg), not engines: an engine maps its
  // whole model file, which counts as address space.
  uint64_t max_address_space = 0;
};

class Process {
 public:
  // Forks and execs; stdin is /dev/null, stdout and stderr go to one pipe.
  // An exec failure is an error here ("llama-server: No such file or
  // directory"), as is a log file that cannot be opened.
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
  // Whether the child was killed from outside (SIGKILL, SIGTERM, SIGINT,
  // SIGHUP: the OOM killer, an operator) rather than ending on its own (an
  // exit code, a crash signal such as SIGSEGV or SIGABRT). bwrap, like a
  // shell, reports its child's death by signal N as exit code 128 + N.
  static bool KilledFromOutside(int wait_status);
  // Blocks until the child has exited (true) or `timeout` has passed
  // (false), polling ExitStatus.
  bool WaitForExit(std::chrono::milliseconds timeout);
  // SIGTERM to the process group, wait up to `grace`, then SIGKILL; blocks
  // until reaped. Idempotent.
  void Terminate(std::chrono::milliseconds grace = std::chrono::seconds(5));

  // The child's most recent output lines (stdout and stderr interleaved).
  // Complete once Terminate has returned (a final partial line is flushed).
  const LineRing& output() const { return *output_; }
  // The last `lines` of output, each after a newline: what an error
  // message or a log line quotes of a child that failed.
  std::string OutputTail(size_t lines) const;

 private:
  Process(pid_t pid, int output_fd, int log_fd, int wake_fd, std::unique_ptr<LineRing> ring);
  // Writes the pid file for `argv` into `dir`; the file goes when the child
  // is reaped.
  Status RecordPidFile(const std::filesystem::path& dir, const std::vector<std::string>& argv);
  // The reader thread: output_fd into the ring and log_fd until EOF or stop.
  void ReadOutput(const std::stop_token& stop, int output_fd, int log_fd);
  // Reaps the leader if it has exited (blocking: waits for it), SIGKILLing
  // what is left of its group first. Requires mu_ held.
  std::optional<int> ReapLocked(bool block) REQUIRES(mu_);
  // Removes the pid file of a reaped child. Requires mu_ held.
  void ForgetPidFileLocked() REQUIRES(mu_);
  // kill(-pid_, sig) unless reaped: only an unreaped leader proves the group
  // id is still ours.
  void SignalGroup(int sig);
  // Lets the reader drain to EOF for a moment, then stops it and joins.
  void StopReader();

  const pid_t pid_;
  std::unique_ptr<LineRing> output_;
  int wake_fd_ = -1;  // eventfd that wakes the reader when it is asked to stop
  Mutex mu_;
  std::optional<int> exit_status_ GUARDED_BY(mu_);
  std::filesystem::path pid_file_ GUARDED_BY(mu_);  // empty = none
  Mutex terminate_mu_;                              // serialises Terminate (joins reader_)
  Mutex reader_mu_;
  CondVar reader_cv_;
  bool reader_done_ GUARDED_BY(reader_mu_) = false;
  std::jthread reader_;
};

}  // namespace zest::engines
