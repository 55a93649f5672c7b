// The head's ggml RPC workers (`[rpc] workers`, `--rpc-worker`): machines
// running `zest worker`, whose devices placement may spread a model over
// when it does not fit here (engines/rpc_backend.h, placement/policy.h).
// Each is checked through the language engine (`llama-server --rpc EP
// --list-devices`) at start-up and before every load, so a worker that went
// away is planned without and one that came back is used again.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "engines/engine_set.h"
#include "metrics/registry.h"
#include "placement/devices.h"

namespace zest::app {

class RpcWorkers {
 public:
  // `endpoints` as the settings hold them (config::Settings::rpc_workers).
  RpcWorkers(std::vector<std::string> endpoints, std::shared_ptr<const engines::EngineSet> engines);

  bool empty() const { return endpoints_.empty(); }

  // Asks every worker what it serves now (blocking: a fraction of a second
  // each, up to 5 s for one that does not answer) and returns their devices.
  // A reachable worker keeps the free memory it reported when first seen:
  // what zest's own engines took there since is in the memory ledger.
  // Workers in `in_use` (by a running engine) are not asked: ggml-rpc-server
  // serves one client at a time, so the probe would wait; the engine's
  // connection says they are there.
  std::vector<placement::PlacementDevice> Check(const std::vector<std::string>& in_use = {});

  // What the last Check found, for /api/v1/health and `zest system`:
  // [{endpoint, device, reachable, total_bytes, free_bytes, error,
  // checked_s_ago}].
  nlohmann::json Json() const;

  // zest_rpc_worker_up{endpoint} (1 when it answered its last check, 0 when
  // not, nothing before the first) and zest_rpc_worker_memory_bytes{endpoint}
  // (what it reported, total).
  void AddGauges(metrics::Registry& metrics);

 private:
  struct Seen {
    placement::PlacementDevice device;
    std::chrono::steady_clock::time_point at;
  };

  const std::vector<std::string> endpoints_;
  const std::shared_ptr<const engines::EngineSet> engines_;
  mutable Mutex mu_;
  std::map<std::string, Seen> last_ GUARDED_BY(mu_);
};

}  // namespace zest::app
