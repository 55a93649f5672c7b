// InstanceDirectory: the engine instances running now, for whatever only
// looks at them (the admin and Ollama routes, metrics, the keep-alive
// reaper, the watchdog, the autoscaler): not how they are started, fed or
// stopped. InstancePool implements it. Any thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/model_settings.h"
#include "placement/engine_plan.h"
#include "scheduler/instance.h"

namespace zest::scheduler {

struct InstanceStatus {
  std::string model;
  pid_t pid = 0;
  std::string socket;
  std::string health_path;  // what answers 200 once the engine is up ("/health")
  std::string engine;       // which engine runs it ("llama-server")
  std::string recipe;       // that engine's recipe ("llamacpp")
  std::string state;        // "loading", "ready", "draining"
  double uptime_s = 0;
  int in_flight = 0;
  placement::EnginePlan plan;          // where it runs and the memory predicted for it
  std::string device;                  // where it computes: "CPU", "Vulkan0"
  int slots = 0;                       // its engine's --parallel
  bool replica = false;                // added by the autoscaler next to the model's first instance
  double idle_s = 0;                   // since its last request finished (or it started)
  std::optional<double> per_token_ms;  // measured generation speed (moving average)
  config::ModelSettings settings;      // the options it was loaded with
};

class InstanceDirectory {
 public:
  virtual ~InstanceDirectory() = default;

  // Every instance: loading, ready or draining.
  virtual std::vector<InstanceStatus> List() = 0;

  // The model's first instance (loading or ready), or null: for reading its
  // engine's output (`zest logs`).
  virtual std::shared_ptr<Instance> Find(const std::string& model) = 0;
};

}  // namespace zest::scheduler
