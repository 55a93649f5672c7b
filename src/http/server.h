// Server: the HTTP/1.1 gateway. Accepts TCP connections (optionally TLS) and
// serves each on one event loop (event_loops.h) as a C++20 coroutine (no
// thread per connection): keep-alive, limits (header and body size, header/idle/body
// timeouts, connections per client address), strict CORS, API keys
// (see authenticator.h), routing, a last-resort catch per request (500).
// The io_context(s) and their threads are owned by the caller (app/).
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "http/router.h"

namespace zest::http {

class Authenticator;
class EventLoops;

// A request that got an error answer.
struct FailedRequest {
  std::string id;  // X-Request-Id
  std::string method;
  std::string path;
  int status = 0;
  std::string body;  // the error body as sent (its first 4 KiB); empty when streamed
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9378;  // 0 picks a free port
  std::size_t max_body_bytes = 32 * 1024 * 1024;
  // The bytes of bodies held at once, over every connection (core/byte_budget.h);
  // 0 = no limit. Over it, 503 with Retry-After.
  uint64_t max_body_memory_bytes = 512ull << 20;
  std::size_t max_header_bytes = 64 * 1024;
  // Slowloris guards: a request's headers must be complete this long after
  // the connection opened (or its first byte arrived, on a kept-alive
  // connection), its body this long after the headers; a kept-alive
  // connection may sit idle between requests this long.
  std::chrono::seconds header_timeout{10};
  std::chrono::seconds body_timeout{120};
  std::chrono::seconds idle_timeout{60};
  // Open connections per client address and in all (0 = unlimited); over
  // either, an idle one makes room (connection_registry.h), else 429.
  int max_connections_per_client = 256;
  int max_connections = 1024;
  // Long-lived streams (Router::SetLongLived: events, logs followed) per
  // client address, counted apart from its connections (0 = unlimited);
  // over it, 429.
  int max_streams_per_client = 64;
  int max_json_depth = 64;  // nesting of a JSON route's body (router.h BodyKind); then 400
  std::vector<std::string> cors_origins;  // exact origins, besides loopback
  // Host names served besides loopback, addresses and this machine's name
  // (host_policy.h); any other Host gets 421.
  std::vector<std::string> allowed_hosts;
  std::shared_ptr<Authenticator> auth;  // null: no API keys
  std::filesystem::path tls_cert;       // PEM chain; with tls_key, serve HTTPS
  std::filesystem::path tls_key;
  // Non-zero: this server serves no routes and reads no bodies. Every
  // request is answered, after its headers, with 308 to
  // https://<Host's name>:<this port><target> and the connection closed
  // (a plain-HTTP listener beside a TLS one; no keys, no CORS, no state).
  uint16_t redirect_to_https_port = 0;
  // Told of each request the gateway turns away before any handler runs,
  // with a bounded reason: "auth", "rate_limit", "cors", "too_large",
  // "timeout", "malformed" (for metrics). May be empty; must be thread-safe.
  std::function<void(std::string_view reason)> on_rejected;
  // Told of each request answered with a status of 400 or more (refused by
  // the gateway or by its handler), for the list of recent errors. May be
  // empty; must be thread-safe.
  std::function<void(const FailedRequest&)> on_failed;
};

class Server {
 public:
  // Accepts and serves connections on `io` (every thread that runs it may
  // take a connection's handlers).
  Server(boost::asio::io_context& io, ServerOptions options, const Router& router,
         ErrorRenderer render_error);
  // Accepts on loop 0 of `loops` and serves each connection on one of them
  // (event_loops.h); `loops` must outlive the server and its connections.
  Server(EventLoops& loops, ServerOptions options, const Router& router,
         ErrorRenderer render_error);
  ~Server();  // NOLINT(bugprone-exception-escape): see server.cc
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the TLS certificate (when configured), binds and listens; errors
  // (bad certificate, address in use, bad host) are returned.
  Status Listen();
  // Re-reads the TLS certificate and key for new connections; open
  // connections keep theirs. On error the old certificate stays in use.
  // Thread-safe.
  Status ReloadTls();
  bool tls() const;
  // Starts accepting. Call after Listen().
  void Start();
  // Stops accepting and closes open connections. Thread-safe.
  void Stop();
  // Closes the listening socket only: connections in progress carry on
  // (graceful shutdown drains them, then calls Stop()).
  void StopAccepting();
  // The bound port (useful with port 0).
  uint16_t port() const;

 private:
  Server(EventLoops* loops, boost::asio::io_context& io, ServerOptions options,
         const Router& router, ErrorRenderer render_error);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zest::http
