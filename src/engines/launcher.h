// How the scheduler starts engines: a Launcher turns spawn options into an
// EngineProcess. ProcessLauncher starts real child processes (process.h);
// the scheduler's unit tests give the pool a fake one, so pool, dispatch,
// eviction and supervision are tested without real engines.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>

#include "core/result.h"
#include "core/ring_buffer.h"
#include "engines/process.h"

namespace zest::engines {

// What the scheduler needs of a started engine. Thread-safe.
class EngineProcess {
 public:
  virtual ~EngineProcess() = default;
  virtual pid_t pid() const = 0;
  // Non-blocking: the wait status once it has exited.
  virtual std::optional<int> ExitStatus() = 0;
  bool Running() { return !ExitStatus().has_value(); }
  // SIGTERM, then SIGKILL after `grace`; blocks until it is gone. Idempotent.
  virtual void Terminate(std::chrono::milliseconds grace) = 0;
  void Terminate() { Terminate(std::chrono::seconds(5)); }
  // Its most recent output lines.
  virtual const LineRing& output() const = 0;
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual Result<std::unique_ptr<EngineProcess>> Launch(const SpawnOptions& options) = 0;
};

// Real processes: Process::Spawn. Call Launch from a long-lived thread (see
// process.h on PR_SET_PDEATHSIG).
class ProcessLauncher : public Launcher {
 public:
  Result<std::unique_ptr<EngineProcess>> Launch(const SpawnOptions& options) override;
};

}  // namespace zest::engines
