// UtilisationSampler: a background thread that reads live utilisation about
// once a second: CPU % (from /proc/stat deltas), RAM used, per GPU busy % and
// VRAM/GTT used (amdgpu sysfs; NVML for NVIDIA when present), per NPU the
// runtime-PM state. It only reads files (and NVML), never spawns processes.
// Owns its std::jthread; Stop() or destruction ends it promptly through the
// stop token. Snapshot() may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "hardware/inventory.h"

namespace zest::hardware {

class Nvml;

struct GpuUtilisation {
  std::string pci_address;
  std::optional<int> busy_percent;
  uint64_t vram_used_bytes = 0;
  uint64_t gtt_used_bytes = 0;
};

struct NpuUtilisation {
  std::string pci_address;
  std::string power_state;  // "active", "suspended", "" when not exposed
};

struct Utilisation {
  uint64_t samples = 0;  // how many samples were taken; 0 = none yet
  std::chrono::system_clock::time_point taken;
  std::optional<double> cpu_percent;  // needs two samples
  uint64_t ram_total_bytes = 0;
  uint64_t ram_used_bytes = 0;  // total - available
  std::vector<GpuUtilisation> gpus;
  std::vector<NpuUtilisation> npus;
};

// Whole-machine CPU time from /proc/stat's first line: busy and total jiffies.
struct CpuTimes {
  uint64_t busy = 0;
  uint64_t total = 0;
};
std::optional<CpuTimes> ParseProcStat(const std::string& stat);
// Busy share between two readings in percent; nullopt when no time passed.
std::optional<double> CpuPercent(const CpuTimes& before, const CpuTimes& after);

class UtilisationSampler {
 public:
  // Samples the devices of `inventory` under `roots`. NVML is opened (once)
  // only when the roots are live and an NVIDIA GPU is present.
  UtilisationSampler(SystemRoots roots, const Inventory& inventory,
                     std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~UtilisationSampler();
  UtilisationSampler(const UtilisationSampler&) = delete;
  UtilisationSampler& operator=(const UtilisationSampler&) = delete;

  // Starts the thread (takes a first sample at once). Call at most once.
  void Start();
  // Requests a stop and joins; idempotent.
  void Stop();

  // The latest sample (samples == 0 before the first).
  Utilisation Snapshot() const;

  // Takes one sample on the caller's thread, for callers that never Start()
  // the thread (tests, `zest system` without a server).
  void SampleNow();

 private:
  void Run(const std::stop_token& stop);

  const SystemRoots roots_;
  const std::chrono::milliseconds interval_;
  std::vector<GpuInfo> gpus_;  // the sampling thread's copy (live fields refreshed)
  std::vector<NpuInfo> npus_;
  std::unique_ptr<Nvml> nvml_;        // sampling thread only
  std::optional<CpuTimes> last_cpu_;  // sampling thread only

  mutable Mutex mu_;
  std::condition_variable_any wake_;
  Utilisation latest_ GUARDED_BY(mu_);
  std::jthread thread_;
};

}  // namespace zest::hardware
