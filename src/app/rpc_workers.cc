#include "app/rpc_workers.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engines/engine_adapter.h"
#include "engines/rpc_backend.h"

namespace zest::app {

RpcWorkers::RpcWorkers(std::vector<std::string> endpoints,
                       std::shared_ptr<const engines::EngineSet> engines)
    : endpoints_(std::move(endpoints)), engines_(std::move(engines)) {}

std::vector<placement::PlacementDevice> RpcWorkers::Check(const std::vector<std::string>& in_use) {
  std::vector<placement::PlacementDevice> devices;
  const engines::EngineAdapter* engine = engines_ ? engines_->language() : nullptr;
  for (const std::string& endpoint : endpoints_) {
    if (std::find(in_use.begin(), in_use.end(), endpoint) != in_use.end()) {
      MutexLock lock(mu_);
      auto seen = last_.find(endpoint);
      if (seen != last_.end()) {  // as last checked: asking now would wait on the engine
        devices.push_back(seen->second.device);
        continue;
      }
    }
    Result<engines::EngineDevice> probed =
        engine != nullptr ? engine->ProbeRpcWorker(endpoint) : Unavailable("no llama-server");
    placement::PlacementDevice device =
        probed.ok() ? placement::WorkerDevice(endpoint, *probed)
                    : placement::UnreachableWorker(engines::RpcDeviceName(endpoint), endpoint,
                                                   probed.status().message());
    MutexLock lock(mu_);
    auto before = last_.find(endpoint);
    const bool was_up = before != last_.end() && before->second.device.reachable;
    if (device.reachable && was_up) {
      device.free_bytes = before->second.device.free_bytes;  // as when first seen
    } else if (device.reachable) {
      spdlog::info("{}", device.description);
    } else if (before == last_.end() || was_up) {
      spdlog::warn("{}", device.description);
    }
    last_[endpoint] = {device, std::chrono::steady_clock::now()};
    devices.push_back(std::move(device));
  }
  return devices;
}

void RpcWorkers::AddGauges(metrics::Registry& metrics) {
  using Samples = std::vector<std::pair<metrics::LabelValues, double>>;
  metrics.AddGaugeCallback("zest_rpc_worker_up",
                           "RPC workers: 1 when the worker answered its last check, else 0.",
                           {"endpoint"}, [this] {
                             Samples out;
                             MutexLock lock(mu_);
                             for (const auto& [endpoint, seen] : last_)
                               out.push_back({{endpoint}, seen.device.reachable ? 1.0 : 0.0});
                             return out;
                           });
  metrics.AddGaugeCallback("zest_rpc_worker_memory_bytes",
                           "RPC workers: the memory each reported (total).", {"endpoint"}, [this] {
                             Samples out;
                             MutexLock lock(mu_);
                             for (const auto& [endpoint, seen] : last_) {
                               if (seen.device.reachable)
                                 out.push_back({{endpoint}, double(seen.device.total_bytes)});
                             }
                             return out;
                           });
}

nlohmann::json RpcWorkers::Json() const {
  nlohmann::json out = nlohmann::json::array();
  const auto now = std::chrono::steady_clock::now();
  MutexLock lock(mu_);
  for (const std::string& endpoint : endpoints_) {
    nlohmann::json w = {{"endpoint", endpoint}, {"device", engines::RpcDeviceName(endpoint)}};
    auto seen = last_.find(endpoint);
    if (seen == last_.end()) {
      w["reachable"] = nullptr;  // not checked yet
      out.push_back(std::move(w));
      continue;
    }
    const placement::PlacementDevice& d = seen->second.device;
    w["reachable"] = d.reachable;
    w["description"] = d.description;
    w["total_bytes"] = d.total_bytes;
    w["free_bytes"] = d.free_bytes;
    w["checked_s_ago"] = std::chrono::duration<double>(now - seen->second.at).count();
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace zest::app
