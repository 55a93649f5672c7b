#include "hardware/sampler.h"

#include <sstream>

#include "hardware/amd_gpu.h"
#include "hardware/memory.h"
#include "hardware/npu.h"
#include "hardware/nvidia.h"

namespace zest::hardware {

std::optional<CpuTimes> ParseProcStat(const std::string& stat) {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice":
  // guest time is already counted in user/nice, so it is not added again.
  std::istringstream in(stat);
  std::string label;
  if (!(in >> label) || label != "cpu") return std::nullopt;
  uint64_t v[8] = {};
  for (auto& x : v) {
    if (!(in >> x)) return std::nullopt;
  }
  CpuTimes t;
  for (uint64_t x : v) t.total += x;
  t.busy = t.total - v[3] - v[4];  // minus idle and iowait
  return t;
}

std::optional<double> CpuPercent(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
  return 100.0 * static_cast<double>(after.busy - before.busy) /
         static_cast<double>(after.total - before.total);
}

UtilisationSampler::UtilisationSampler(SystemRoots roots, const Inventory& inventory,
                                       std::chrono::milliseconds interval)
    : roots_(std::move(roots)), interval_(interval), gpus_(inventory.gpus), npus_(inventory.npus) {
  bool nvidia = false;
  for (const auto& g : gpus_) nvidia = nvidia || g.vendor == GpuVendor::kNvidia;
  if (nvidia && roots_.IsLive()) nvml_ = Nvml::Open();
}

UtilisationSampler::~UtilisationSampler() { Stop(); }

void UtilisationSampler::Start() {
  thread_ = std::jthread([this](const std::stop_token& stop) { Run(stop); });
}

void UtilisationSampler::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

Utilisation UtilisationSampler::Snapshot() const {
  MutexLock lock(mu_);
  return latest_;
}

void UtilisationSampler::Run(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    SampleNow();
    MutexLock lock(mu_);
    // Wakes early when a stop is requested, so Stop() never waits an interval.
    wake_.wait_for(lock, stop, interval_, [] { return false; });
  }
}

void UtilisationSampler::SampleNow() {
  Utilisation u;
  u.taken = std::chrono::system_clock::now();
  if (auto now = ParseProcStat(ReadFile(roots_.Proc("stat")).value_or(""))) {
    if (last_cpu_) u.cpu_percent = CpuPercent(*last_cpu_, *now);
    last_cpu_ = now;
  }
  MemoryInfo mem = DiscoverMemory(roots_);
  u.ram_total_bytes = mem.total_bytes;
  u.ram_used_bytes = mem.total_bytes - std::min(mem.total_bytes, mem.available_bytes);
  for (auto& g : gpus_) {
    if (g.vendor == GpuVendor::kAmd) RefreshAmdGpu(roots_, &g);
    if (g.vendor == GpuVendor::kNvidia && nvml_) nvml_->Fill(&g);
    u.gpus.push_back({g.pci.address, g.busy_percent, g.vram_used_bytes, g.gtt_used_bytes});
  }
  for (const auto& n : npus_) u.npus.push_back({n.pci.address, NpuPowerState(roots_, n)});
  MutexLock lock(mu_);
  u.samples = latest_.samples + 1;
  latest_ = std::move(u);
}

}  // namespace zest::hardware
