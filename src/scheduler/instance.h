// Instance: one running engine process serving one model on a UNIX socket.
// Created and owned by the InstancePool; requests hold a shared_ptr while
// they talk to it, so a stopped instance stays valid (but dead) until the
// last request lets go.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "engines/process.h"

namespace zest::scheduler {

class Instance {
 public:
  Instance(std::string model, std::filesystem::path socket,
           std::unique_ptr<engines::Process> process)
      : model_(std::move(model)),
        socket_(std::move(socket)),
        process_(std::move(process)),
        started_at_(std::chrono::steady_clock::now()),
        last_used_ns_(started_at_.time_since_epoch().count()) {}

  const std::string& model() const { return model_; }
  const std::filesystem::path& socket() const { return socket_; }
  pid_t pid() const { return process_->pid(); }
  engines::Process& process() { return *process_; }
  std::chrono::steady_clock::time_point started_at() const { return started_at_; }
  bool Alive() { return process_->Running(); }

  // Requests currently being relayed to this instance.
  std::atomic<int> in_flight{0};

  // When a request last finished here (or the instance started): idle time
  // for eviction.
  std::chrono::steady_clock::time_point LastUsed() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_used_ns_.load()));
  }
  void Touch() { last_used_ns_ = std::chrono::steady_clock::now().time_since_epoch().count(); }

 private:
  const std::string model_;
  const std::filesystem::path socket_;
  const std::unique_ptr<engines::Process> process_;
  const std::chrono::steady_clock::time_point started_at_;
  std::atomic<std::chrono::steady_clock::rep> last_used_ns_;
};

// Counts a request in flight for as long as it lives.
class InFlight {
 public:
  explicit InFlight(std::shared_ptr<Instance> instance) : instance_(std::move(instance)) {
    ++instance_->in_flight;
  }
  ~InFlight() {
    instance_->Touch();
    --instance_->in_flight;
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  std::shared_ptr<Instance> instance_;
};

}  // namespace zest::scheduler
