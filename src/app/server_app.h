// ServerApp: zest's server as one object, the only place that constructs
// services. Its members are built in dependency order (settings, run
// directory, keys, engines, hardware, the io_context, models, metrics, the
// engine pool, admission, the background loops, the APIs, the HTTP
// servers) and destroyed in reverse. Its life has three public steps:
//
//   auto app = ServerApp::Create(settings);  // checks, directories, keys
//   app->Start();                            // listen, start the loops
//   app->Serve();                            // until SIGINT or SIGTERM
//   app->Drain();                            // finish requests, stop engines
//
// Called from one thread (the CLI's `serve`); the services inside run on
// the io_context's threads, which Serve starts and Drain joins.
#pragma once

#include <memory>

#include "config/settings.h"
#include "core/result.h"
#include "core/ring_buffer.h"

namespace zest::app {

class ServerApp {
 public:
  // Everything that can be refused before a service exists: engine flags
  // the allow-list refuses (kInvalidArgument), zest's directories, engines
  // a dead zest left running (stopped), the run directory, the keys file
  // (kInvalidArgument when malformed or not private). `log_ring` is what
  // SetupLogging returned (zest's recent lines, for /api/v1/logs).
  static Result<std::unique_ptr<ServerApp>> Create(const config::LoadedSettings& loaded,
                                                   std::shared_ptr<LineRing> log_ring);
  // Drains first if Drain was not called.
  ~ServerApp();
  ServerApp(const ServerApp&) = delete;
  ServerApp& operator=(const ServerApp&) = delete;

  // Checks the bind against the keys (kInvalidArgument: no keys off
  // loopback), listens (and on the HTTPS redirect port), starts the
  // background loops. Errors leave nothing listening.
  Status Start();
  // Runs the I/O threads until SIGINT or SIGTERM; returns the signal.
  int Serve();
  // Stops accepting, lets running and queued requests finish (streams
  // included) for up to server.drain_timeout_s, then stops every engine,
  // the loops and the I/O threads. Idempotent.
  void Drain();

 private:
  struct Parts;  // the services, in construction order (server_app.cc)
  explicit ServerApp(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

// Create, Start, Serve, Drain: the process exit code (0; 2 for a
// configuration zest refuses; 1 for other failures).
int RunServer(const config::LoadedSettings& loaded);

}  // namespace zest::app
