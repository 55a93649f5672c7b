// Test-only fakes for the scheduler's unit tests: an engine process, its
// adapter and the launcher that starts it, so the pool and the engine
// starter run without real engines. The fake engine answers HTTP on the
// instance's UNIX socket from a thread of its own, so readiness and health
// probes go over a real socket; its process is a stand-in (no process runs).
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "engines/engine_adapter.h"
#include "engines/launcher.h"

namespace zest::scheduler::fake {

namespace fs = std::filesystem;

// Wait statuses as waitpid gives them.
constexpr int kExitedWithCode1 = 1 << 8;
constexpr int kKilledBySigkill = SIGKILL;

// A stand-in engine: serves GET requests on `socket` (200 while healthy,
// else 503) until it exits; Terminate is an exit by SIGTERM. Say(line) is
// a line of its output.
class FakeEngine : public engines::EngineProcess {
 public:
  FakeEngine(pid_t pid, fs::path socket) : pid_(pid), socket_(std::move(socket)) {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof(addr.sun_path) - 1);
    ::unlink(socket_.c_str());
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 16) != 0) {
      ADD_FAILURE() << "fake engine cannot listen on " << socket_ << ": " << std::strerror(errno);
    }
    server_ = std::jthread([this](const std::stop_token& stop) { Serve(stop); });
  }
  ~FakeEngine() override {
    server_.request_stop();
    server_.join();
    ::close(listen_fd_);
  }

  pid_t pid() const override { return pid_; }
  std::optional<int> ExitStatus() override {
    MutexLock lock(mu_);
    return exit_;
  }
  void Terminate(std::chrono::milliseconds) override { Exit(SIGTERM); }
  const LineRing& output() const override { return output_; }

  void Exit(int wait_status) {
    MutexLock lock(mu_);
    if (!exit_) exit_ = wait_status;
  }
  void SetHealthy(bool healthy) { healthy_ = healthy; }
  void Say(const std::string& line) { output_.Append(line + "\n"); }

 private:
  void Serve(const std::stop_token& stop) {
    while (!stop.stop_requested() && !ExitStatus()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::string request;
      char buf[1024];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
      }
      const std::string reply =
          healthy_ ? "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}"
                   : "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n";
      if (::write(fd, reply.data(), reply.size()) < 0) ADD_FAILURE() << "fake engine write";
      ::close(fd);
    }
  }

  const pid_t pid_;
  const fs::path socket_;
  int listen_fd_ = -1;
  std::atomic<bool> healthy_{true};
  Mutex mu_;
  std::optional<int> exit_ GUARDED_BY(mu_);
  LineRing output_{16};
  std::jthread server_;
};

// The engine adapter the fake launcher reads: argv = {NAME, SOCKET}.
class FakeAdapter : public engines::EngineAdapter {
 public:
  explicit FakeAdapter(const char* name = "fake-engine") : name_(name) {}
  const char* name() const override { return name_; }
  const char* recipe() const override { return "fake"; }
  Status Available() const override { return Status::Ok(); }
  Result<engines::LaunchCommand> Command(const engines::LaunchSpec& spec) const override {
    return engines::LaunchCommand{{name_, spec.socket.string()}, {"FAKE=1"}};
  }
  std::optional<std::string> PathFor(engines::Capability) const override { return "/"; }

 private:
  const char* const name_;
};

// Starts FakeEngines; with `exit_at_once`, each one has exited with code 1
// before it could answer (a doomed engine).
class FakeLauncher : public engines::Launcher {
 public:
  Result<std::unique_ptr<engines::EngineProcess>> Launch(
      const engines::SpawnOptions& options) override {
    auto engine = std::make_unique<FakeEngine>(next_pid_++, options.argv.at(1));
    if (exit_at_once) {
      engine->Say("error: the model cannot be loaded");
      engine->Exit(kExitedWithCode1);
    }
    MutexLock lock(mu_);
    launched_.push_back(engine.get());
    spawned_.push_back(options);
    return std::unique_ptr<engines::EngineProcess>(std::move(engine));
  }
  int launches() {
    MutexLock lock(mu_);
    return static_cast<int>(launched_.size());
  }
  // The nth engine started (owned by its instance: valid while it is listed).
  FakeEngine* engine(int n) {
    MutexLock lock(mu_);
    return launched_.at(static_cast<std::size_t>(n));
  }
  // What the nth engine was started with.
  engines::SpawnOptions spawned(int n) {
    MutexLock lock(mu_);
    return spawned_.at(static_cast<std::size_t>(n));
  }
  std::atomic<bool> exit_at_once{false};

 private:
  std::atomic<pid_t> next_pid_{4'000'000};
  Mutex mu_;
  std::vector<FakeEngine*> launched_ GUARDED_BY(mu_);
  std::vector<engines::SpawnOptions> spawned_ GUARDED_BY(mu_);
};

}  // namespace zest::scheduler::fake
