// Readiness, apart from liveness: GET /ready tells a load balancer whether
// to send this node work. 200 {"status":"ready"} only while the node takes
// requests; 503 {"status":"starting"|"not_ready"|"draining","reason"}
// otherwise: starting until the listener is up and the cluster manifest's
// models are checked, not_ready while a manifest model is missing or
// differs (cluster_sync.h), draining from SIGTERM on. GET /health stays
// liveness (the process answers at all).
//
// On SIGTERM the node turns "draining" first (so balancers stop sending it
// work after their next check), keeps serving for server.shutdown_delay_s,
// then closes its listener and lets what runs finish (ServerApp::Drain).
// Draining is final. Thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/mutex.h"
#include "http/router.h"

namespace zest::app {

class Readiness {
 public:
  enum class State { kStarting, kReady, kNotReady, kDraining };

  // `reason` says why the node is not ready; ignored once draining.
  void Set(State state, std::string reason = "");
  State state() const;
  static std::string_view Name(State state);

  // GET /ready (public, like /health).
  void Register(http::Router& router);

 private:
  mutable Mutex mu_;
  State state_ GUARDED_BY(mu_) = State::kStarting;
  std::string reason_ GUARDED_BY(mu_) = "the server is starting";
};

}  // namespace zest::app
