// Readiness, apart from liveness: GET /ready tells a load balancer whether
// to send this node work. 200 {"status":"ready"} only while the node takes
// requests; 503 {"status":"starting"|"draining","reason"} otherwise. GET
// /health stays liveness (the process answers at all).
//
// On SIGTERM the node turns "draining" first (so balancers stop sending it
// work after their next check), keeps serving for server.shutdown_delay_s,
// then closes its listener and lets what runs finish (ServerApp::Drain).
// Thread-safe.
#pragma once

#include <atomic>
#include <string_view>

#include "http/router.h"

namespace zest::app {

class Readiness {
 public:
  enum class State { kStarting, kReady, kDraining };

  void Set(State state) { state_.store(state); }
  State state() const { return state_.load(); }
  static std::string_view Name(State state);

  // GET /ready (public, like /health).
  void Register(http::Router& router);

 private:
  std::atomic<State> state_{State::kStarting};
};

}  // namespace zest::app
