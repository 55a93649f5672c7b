#include "engines/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <utility>

#include "engines/path_search.h"
#include "engines/pid_file.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX gives no header

namespace zest::engines {
namespace {

// How long Terminate lets the reader drain the pipe after the group is dead.
// EOF normally arrives at once; only a process that left the group (setsid)
// and kept the pipe open makes us wait this long and then stop reading.
constexpr std::chrono::milliseconds kReaderDrain(1000);

std::string ErrnoMessage(int err) { return std::system_category().message(err); }

// Owns one file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~UniqueFd() { Reset(); }
  int Get() const { return fd_; }
  int Release() { return std::exchange(fd_, -1); }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Everything the child needs, built before fork: after fork in a threaded
// program the child may not allocate (another thread may hold malloc's lock).
struct ChildPlan {
  std::string path;
  std::vector<std::string> argv_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  uint64_t max_address_space = 0;
};

// The inherited environment with `overrides` ("K=V") replacing same-named
// variables, in the original order; never systemd's NOTIFY_SOCKET, so that
// no child can tell systemd that zest is ready or stopping
// (app/service_notify.h).
std::vector<std::string> MergeEnvironment(const std::vector<std::string>& overrides) {
  auto key_of = [](std::string_view kv) { return kv.substr(0, kv.find('=')); };
  std::vector<std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view key = key_of(*entry);
    if (key == "NOTIFY_SOCKET") continue;
    bool overridden = false;
    for (const auto& o : overrides) overridden = overridden || key_of(o) == key;
    if (!overridden) merged.emplace_back(*entry);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Result<ChildPlan> MakePlan(const SpawnOptions& options) {
  if (options.argv.empty() || options.argv[0].empty()) return InvalidArgument("spawn: empty argv");
  ChildPlan plan;
  plan.argv_storage = options.argv;
  plan.env_storage = options.clear_env ? options.env : MergeEnvironment(options.env);
  const std::string& name = options.argv[0];
  if (name.find('/') != std::string::npos) {
    plan.path = name;
  } else {
    // The PATH the child will see, so env overrides of PATH apply.
    std::string_view path_env;
    for (const auto& kv : plan.env_storage) {
      if (kv.rfind("PATH=", 0) == 0) path_env = std::string_view(kv).substr(5);
    }
    auto found = FindOnPath(path_env, name);
    if (!found) return EngineFailed(name + ": " + ErrnoMessage(ENOENT));
    plan.path = found->string();
  }
  plan.max_address_space = options.max_address_space;
  plan.argv = CStrings(plan.argv_storage);
  plan.envp = CStrings(plan.env_storage);
  return plan;
}

// Pipes and files a spawn needs, opened in the parent so every failure is
// reported before fork. All are close-on-exec; the child dup2s what it keeps.
struct SpawnFds {
  UniqueFd output_read, output_write;  // the child's stdout+stderr
  UniqueFd exec_read, exec_write;      // carries errno if execve fails
  UniqueFd dev_null;                   // the child's stdin
  UniqueFd log;                        // -1 when there is no log file
  UniqueFd wake;                       // eventfd that stops the reader
};

// Moves a descriptor above 0..2 so dup2 onto stdio in the child is never a
// no-op that would keep its close-on-exec flag (possible if zest's own stdio
// was closed).
Status AboveStdio(UniqueFd& fd) {
  if (fd.Get() > 2) return Status::Ok();
  int moved = fcntl(fd.Get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return IoError("fcntl: " + ErrnoMessage(errno));
  fd.Reset(moved);
  return Status::Ok();
}

Status MakePipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return IoError("pipe: " + ErrnoMessage(errno));
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  ZEST_RETURN_IF_ERROR(AboveStdio(read_end));
  return AboveStdio(write_end);
}

Result<SpawnFds> OpenSpawnFds(const std::filesystem::path& log_file) {
  SpawnFds fds;
  ZEST_RETURN_IF_ERROR(MakePipe(fds.output_read, fds.output_write));
  ZEST_RETURN_IF_ERROR(MakePipe(fds.exec_read, fds.exec_write));
  fds.dev_null.Reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (fds.dev_null.Get() < 0) return IoError("open /dev/null: " + ErrnoMessage(errno));
  ZEST_RETURN_IF_ERROR(AboveStdio(fds.dev_null));
  if (!log_file.empty()) {
    fds.log.Reset(open(log_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
    if (fds.log.Get() < 0) {
      return IoError("open log file " + log_file.string() + ": " + ErrnoMessage(errno));
    }
  }
  fds.wake.Reset(eventfd(0, EFD_CLOEXEC));
  if (fds.wake.Get() < 0) return IoError("eventfd: " + ErrnoMessage(errno));
  return fds;
}

// Child side, between fork and exec: async-signal-safe calls only.
void ResetSignals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  // Ignored signals survive exec; an engine must start with the defaults.
  // SIGKILL, SIGSTOP and libc's reserved signals fail harmlessly.
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
}

// Every descriptor from 3 up closes at exec, whatever other threads opened
// without O_CLOEXEC; the exec-error pipe stays open until exec succeeds.
void CloseFromThreeOnExec() {
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  struct rlimit limit {};
  int max_fd = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < (1u << 20)
                   ? static_cast<int>(limit.rlim_cur)
                   : (1 << 20);
  for (int fd = 3; fd < max_fd; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

[[noreturn]] void ExecChild(const ChildPlan& plan, const SpawnFds& fds, pid_t parent) {
  int exec_fd = fds.exec_write.Get();
  auto fail = [exec_fd](int err) {
    ssize_t ignored = write(exec_fd, &err, sizeof(err));
    (void)ignored;  // the parent sees EOF and a dead child either way
    _exit(127);
  };
  if (setpgid(0, 0) != 0) fail(errno);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail(errno);
  // The parent may have died before prctl: then no signal will ever come.
  if (getppid() != parent) _exit(127);
  ResetSignals();
  if (dup2(fds.dev_null.Get(), 0) < 0 || dup2(fds.output_write.Get(), 1) < 0 ||
      dup2(fds.output_write.Get(), 2) < 0) {
    fail(errno);
  }
  if (plan.max_address_space > 0) {
    const struct rlimit cap { plan.max_address_space, plan.max_address_space };
    if (setrlimit(RLIMIT_AS, &cap) != 0) fail(errno);
  }
  CloseFromThreeOnExec();
  execve(plan.path.c_str(), plan.argv.data(), plan.envp.data());
  fail(errno);
  _exit(127);  // not reached: fail() exits
}

// EOF on the exec-error pipe means execve succeeded (the pipe closed on exec);
// an errno means it failed, and the child is reaped here.
Status AwaitExec(int exec_read, pid_t pid, const std::string& name) {
  int err = 0;
  ssize_t got;
  do {
    got = read(exec_read, &err, sizeof(err));
  } while (got < 0 && errno == EINTR);
  if (got == 0) return Status::Ok();
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (got == static_cast<ssize_t>(sizeof(err)))
    return EngineFailed(name + ": " + ErrnoMessage(err));
  return EngineFailed(name + ": could not start (child exited before exec)");
}

}  // namespace

Result<std::unique_ptr<Process>> Process::Spawn(const SpawnOptions& options) {
  ZEST_ASSIGN_OR_RETURN(ChildPlan plan, MakePlan(options));
  ZEST_ASSIGN_OR_RETURN(SpawnFds fds, OpenSpawnFds(options.log_file));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return EngineFailed("fork: " + ErrnoMessage(errno));
  if (pid == 0) ExecChild(plan, fds, parent);
  fds.output_write.Reset();
  fds.exec_write.Reset();
  fds.dev_null.Reset();
  ZEST_RETURN_IF_ERROR(AwaitExec(fds.exec_read.Get(), pid, options.argv[0]));
  auto ring = std::make_unique<LineRing>(options.ring_lines);
  std::unique_ptr<Process> process(new Process(pid, fds.output_read.Release(), fds.log.Release(),
                                               fds.wake.Release(), std::move(ring)));
  // An engine zest could not record is stopped (by the destructor): one that
  // might outlive a crashed zest unnoticed is worse than a failed load.
  if (!options.pid_dir.empty())
    ZEST_RETURN_IF_ERROR(process->RecordPidFile(options.pid_dir, options.argv));
  return process;
}

Status Process::RecordPidFile(const std::filesystem::path& dir,
                              const std::vector<std::string>& argv) {
  MutexLock lock(mu_);
  if (exit_status_) return Status::Ok();  // already reaped: nothing to record
  auto record = RecordFor(pid_, argv);
  // No start time means the child has already exited (a zombie until the
  // next ExitStatus): nothing is left to record.
  if (!record.ok()) return Status::Ok();
  ZEST_RETURN_IF_ERROR(WritePidFile(dir, *record));
  pid_file_ = PidFilePath(dir, pid_);
  return Status::Ok();
}

Process::Process(pid_t pid, int output_fd, int log_fd, int wake_fd, std::unique_ptr<LineRing> ring)
    : pid_(pid), output_(std::move(ring)), wake_fd_(wake_fd) {
  reader_ = std::jthread([this, output_fd, log_fd](const std::stop_token& stop) {
    ReadOutput(stop, output_fd, log_fd);
  });
}

Process::~Process() {
  Terminate();
  close(wake_fd_);
}

namespace {

// Once output arrives, the reader waits this long (or for its stop) before
// it reads, so the lines of one burst are read together: llama-server writes
// a few lines at the start of each request and a few at its end, and reading
// each write as it came woke this thread two or three times per 1-token
// request, 8-9 system calls (bench/profiles/gateway-1token.md). A line
// reaches the ring and the log file this much later at most, and at once
// when the engine exits; the pipe holds 64 KiB meanwhile, and one read
// takes all of it.
constexpr int kCoalesceMs = 20;

}  // namespace

void Process::ReadOutput(const std::stop_token& stop, int output_fd, int log_fd) {
  std::stop_callback wake(stop, [this] {
    std::uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof(one));
    (void)ignored;  // an eventfd write only fails on counter overflow
  });
  std::array<pollfd, 2> fds = {pollfd{output_fd, POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
  std::array<char, 64 * 1024> buffer;  // a pipe's worth
  while (!stop.stop_requested()) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) break;
    // The rest of the burst, unless the engine closes its end meanwhile
    // (it exited: all of its output is here, and a failed load's reason is
    // read from it at once) or the reader is asked to stop.
    if ((fds[0].revents & POLLHUP) == 0) {
      std::array<pollfd, 2> wait = {pollfd{output_fd, 0, 0}, fds[1]};  // 0: hang-up only
      if (poll(wait.data(), wait.size(), kCoalesceMs) > 0 && wait[1].revents != 0) break;
    }
    ssize_t got = read(output_fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    std::string_view bytes(buffer.data(), static_cast<std::size_t>(got));
    output_->Append(bytes);
    if (log_fd >= 0 && write(log_fd, bytes.data(), bytes.size()) != got) {
      // A full disk must not stall the engine (its pipe would fill): keep
      // reading into the ring, say so once, and stop logging.
      output_->Append("\nzest: writing the log file failed; logging stopped\n");
      close(std::exchange(log_fd, -1));
    }
  }
  output_->Flush();
  close(output_fd);
  if (log_fd >= 0) close(log_fd);
  MutexLock lock(reader_mu_);
  reader_done_ = true;
  reader_cv_.notify_all();
}

std::optional<int> Process::ExitStatus() {
  MutexLock lock(mu_);
  return ReapLocked(false);
}

std::optional<int> Process::ReapLocked(bool block) {
  if (exit_status_) return exit_status_;
  // WNOWAIT: look without reaping, so the group id stays ours for the kill.
  siginfo_t info{};
  int rc;
  do {
    rc = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    // ECHILD: someone else reaped our child against the contract. It is gone;
    // its status is lost, so report a failure rather than hang.
    exit_status_ = W_EXITCODE(255, 0);
    ForgetPidFileLocked();
    return exit_status_;
  }
  if (info.si_pid == 0) return std::nullopt;
  kill(-pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exit_status_ = status;
  ForgetPidFileLocked();
  return exit_status_;
}

void Process::ForgetPidFileLocked() {
  if (pid_file_.empty()) return;
  std::error_code ignored;  // a file removed by hand is no failure
  std::filesystem::remove(std::exchange(pid_file_, {}), ignored);
}

std::string Process::OutputTail(size_t lines) const {
  std::string out;
  for (const std::string& line : output_->Tail(lines)) out += "\n" + line;
  return out;
}

std::string Process::DescribeExit(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return "killed by signal " + std::to_string(WTERMSIG(wait_status));
  return "wait status " + std::to_string(wait_status);
}

bool Process::KilledFromOutside(int wait_status) {
  auto outside = [](int sig) {
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
  };
  if (WIFSIGNALED(wait_status)) return outside(WTERMSIG(wait_status));
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) > 128 &&
         outside(WEXITSTATUS(wait_status) - 128);
}

void Process::SignalGroup(int sig) {
  MutexLock lock(mu_);
  if (!exit_status_) kill(-pid_, sig);
}

bool Process::WaitForExit(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(2);
  while (!ExitStatus()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

void Process::Terminate(std::chrono::milliseconds grace) {
  MutexLock terminate_lock(terminate_mu_);
  if (!ExitStatus()) {
    SignalGroup(SIGTERM);
    if (!WaitForExit(grace)) {
      SignalGroup(SIGKILL);
      MutexLock lock(mu_);
      (void)ReapLocked(true);
    }
  }
  StopReader();
}

void Process::StopReader() {
  {
    MutexLock lock(reader_mu_);
    reader_cv_.wait_for(lock, kReaderDrain, [this]() REQUIRES(reader_mu_) { return reader_done_; });
  }
  reader_.request_stop();
  if (reader_.joinable()) reader_.join();
}

}  // namespace zest::engines
