// ClusterSync: makes this node hold the cluster manifest's models
// (models/cluster_manifest.h, `cluster.manifest`), so that any node behind
// the load balancer can serve any request. At start-up, on a thread of its
// own, and on `zest sync` (POST /api/v1/cluster/sync) it pulls what is
// missing and checks each listed file's sha256; the node stays not ready
// (GET /ready 503) until every model is present, and reports each model's
// state (present, pulling, missing, drift, failed) on GET /api/v1/cluster
// and as zest_cluster_models{status} on /metrics. Without a manifest the
// node is ready as soon as it listens. Thread-safe.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/readiness.h"
#include "core/mutex.h"
#include "http/router.h"
#include "metrics/registry.h"
#include "models/cluster_manifest.h"
#include "models/pull_service.h"

namespace zest::app {

class ClusterSync {
 public:
  // `manifest` empty: none. All references must outlive this.
  ClusterSync(std::filesystem::path manifest, const models::Catalog* catalog,
              models::PullService& pulls, Readiness& readiness);
  ~ClusterSync();
  ClusterSync(const ClusterSync&) = delete;
  ClusterSync& operator=(const ClusterSync&) = delete;

  // The listener is up: reconcile in the background (or, without a
  // manifest, be ready now).
  void Start();
  // Stops a running reconcile (a pull in progress stops and resumes next
  // time) and joins.
  void Stop();

  // Reconciles now; blocks. What GET /api/v1/cluster then says.
  nlohmann::json SyncNow();
  nlohmann::json Json() const;

  void Register(http::Router& router);
  void AddGauges(metrics::Registry& metrics);

 private:
  struct ModelState {
    models::ManifestEntry entry;
    std::string status;  // present, pulling, checking, missing, drift, failed
    std::string model;   // the name it is served under, when known
    std::string detail;  // why not present; the commit of a pull
  };
  void Reconcile();
  ModelState Check(const models::ManifestEntry& entry);
  void SetState(std::size_t index, const ModelState& state);

  const std::filesystem::path manifest_;
  const models::Catalog* const catalog_;
  models::PullService& pulls_;
  Readiness& readiness_;
  std::atomic<bool> cancel_{false};
  Mutex sync_mu_;  // one reconcile at a time
  mutable Mutex mu_;
  std::vector<ModelState> states_ GUARDED_BY(mu_);
  std::string error_ GUARDED_BY(mu_);  // the manifest itself is unreadable
  bool syncing_ GUARDED_BY(mu_) = false;
  std::jthread startup_;
  boost::asio::thread_pool blocking_{1};  // POST /api/v1/cluster/sync
};

}  // namespace zest::app
