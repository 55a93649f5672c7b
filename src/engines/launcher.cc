#include "engines/launcher.h"

namespace zest::engines {

// Process is an EngineProcess in all but name: this adapts the one to the other.
class SpawnedProcess : public EngineProcess {
 public:
  explicit SpawnedProcess(std::unique_ptr<Process> process) : process_(std::move(process)) {}
  pid_t pid() const override { return process_->pid(); }
  std::optional<int> ExitStatus() override { return process_->ExitStatus(); }
  void Terminate(std::chrono::milliseconds grace) override { process_->Terminate(grace); }
  const LineRing& output() const override { return process_->output(); }

 private:
  const std::unique_ptr<Process> process_;
};

Result<std::unique_ptr<EngineProcess>> ProcessLauncher::Launch(const SpawnOptions& options) {
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<Process> process, Process::Spawn(options));
  return std::unique_ptr<EngineProcess>(std::make_unique<SpawnedProcess>(std::move(process)));
}

}  // namespace zest::engines
