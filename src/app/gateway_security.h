// The gateway's security wiring, kept out of server_app.cc: which routes need
// which key scope, the refusal to serve a non-loopback address without keys,
// the server options from settings, and SIGHUP reloads (TLS certificate and
// keys file). Called once, from RunServer, before the server starts.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <memory>
#include <vector>

#include "config/settings.h"
#include "core/result.h"
#include "http/authenticator.h"
#include "http/router.h"
#include "http/server.h"

namespace zest::app {

// Marks the open route (/health, liveness only) and the inference POST
// routes, and /api/v1/config and /api/v1/logs as admin; every other GET
// needs any key and every other non-GET route stays admin (the Router's
// defaults). /metrics is ruled only when `metrics_enabled` (without
// metrics it is not served at all). An error names a rule whose route does
// not exist.
Status ApplyAccessRules(http::Router& router, bool metrics_enabled, bool metrics_public);

// An error (to print, then exit) when `host` (server.host, and
// server.ollama_listen's host) is not a loopback address and no API key is
// configured, unless insecure_no_auth is set.
Status CheckBindSafety(const config::Settings& settings, const http::Authenticator& auth);

http::ServerOptions GatewayOptions(const config::Settings& settings,
                                   std::shared_ptr<http::Authenticator> auth);

// The options of the second listener for apps that hard-code Ollama's
// address (server.ollama_listen, "HOST:PORT"): the gateway's, keys, limits
// and TLS included, on that address. An error for a malformed address.
Result<http::ServerOptions> OllamaListenerOptions(const config::Settings& settings,
                                                  std::shared_ptr<http::Authenticator> auth);

// The options of the plain-HTTP listener that redirects to HTTPS on
// `tls_port` (server.https_redirect_port): same host and header limits, no
// keys, no TLS. An error when the redirect is asked for without TLS.
Result<http::ServerOptions> RedirectOptions(const config::Settings& settings, uint16_t tls_port);

// On each SIGHUP: reload the TLS certificate of every listener in
// `servers` (the gateway, and the Ollama listener when there is one) and the
// keys file; errors are logged and the old ones stay. `signals` must be
// registered for SIGHUP and, with `servers` and `auth`, outlive the
// io_context's run.
void ReloadOnHangup(boost::asio::signal_set& signals, const std::vector<http::Server*>& servers,
                    http::Authenticator& auth);

}  // namespace zest::app
