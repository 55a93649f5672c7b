#include "app/gateway_security.h"

#include <spdlog/spdlog.h>

#include <boost/asio/ip/address.hpp>
#include <limits>

#include "app/service_notify.h"
#include "core/host_port.h"
#include "http/cors.h"

namespace zest::app {

Status ApplyAccessRules(http::Router& router, bool metrics_enabled, bool metrics_public) {
  using http::Access;
  struct Rule {
    const char* method;
    std::string pattern;
    Access access;
  };
  std::vector<Rule> rules = {
      // Liveness only: {"status":"ok"}. The details (/api/v1/health) need a key.
      {"GET", "/health", Access::kPublic},
      // Readiness for load balancers: "ready", "starting" or "draining", no details.
      {"GET", "/ready", Access::kPublic},
      {"GET", "/api/v1/config", Access::kAdmin},
      // Every request's lines and the engines' output: other tenants' business.
      {"GET", "/api/v1/logs", Access::kAdmin},
      // The manifest's path and its models' files on this host: operations'
      // business, nothing a client needs (issue 52, 16).
      {"GET", "/api/v1/cluster", Access::kAdmin},
      {"POST", "/api/v1/show", Access::kInference},
      {"POST", "/api/show", Access::kInference},  // Ollama's
      {"POST", "/api/embed", Access::kInference},
      {"POST", "/api/embeddings", Access::kInference},
      {"POST", "/api/chat", Access::kInference},
      {"POST", "/api/generate", Access::kInference},
      {"POST", "/v1/messages", Access::kInference},  // Anthropic's
      {"POST", "/v1/messages/count_tokens", Access::kInference},
      // OpenAI's Responses; stored ones are the creating key's own.
      {"POST", "/v1/responses", Access::kInference},
      {"DELETE", "/v1/responses/{id}", Access::kInference},
      {"GET", "/", Access::kPublic},  // Ollama's "Ollama is running"; browsers go to /ui/
      // The web UI's page and files (it asks for a key itself), and what a
      // presented key may do.
      {"GET", "/ui", Access::kPublic},
      {"GET", "/ui/", Access::kPublic},
      {"GET", "/ui/{path...}", Access::kPublic},
      {"GET", "/api/v1/session", Access::kPublic},
  };
  if (metrics_enabled) {
    rules.push_back({"GET", "/metrics", metrics_public ? Access::kPublic : Access::kInference});
  }
  for (std::string prefix : {"/v1", "/api/v1"}) {
    for (const char* endpoint : {"/chat/completions", "/completions", "/embeddings",
                                 "/audio/transcriptions", "/audio/translations", "/audio/speech",
                                 "/images/generations", "/tokenize", "/detokenize", "/rerank"}) {
      rules.push_back({"POST", prefix + endpoint, Access::kInference});
    }
  }
  for (const Rule& rule : rules) {
    if (!router.SetAccess(rule.method, rule.pattern, rule.access)) {
      return Internal(std::string("access rule for a missing route: ") + rule.method + " " +
                      rule.pattern);
    }
  }
  return Status::Ok();
}

namespace {

Status CheckHostSafety(const std::string& host, const config::Settings& s,
                       const http::Authenticator& auth) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  bool loopback = host == "localhost" || (!ec && address.is_loopback());
  if (loopback || auth.enabled() || s.insecure_no_auth) return Status::Ok();
  return InvalidArgument(
      "refusing to listen on " + host +
      " without API keys: anyone who can reach this address could use and administer this "
      "server. Add a key (`zest keys add NAME --scope admin`, or --api-key / ZEST_API_KEY), "
      "or pass --insecure-no-auth to accept the risk.");
}

}  // namespace

Status CheckBindSafety(const config::Settings& s, const http::Authenticator& auth) {
  ZEST_RETURN_IF_ERROR(CheckHostSafety(s.host, s, auth));
  if (s.ollama_listen.empty()) return Status::Ok();
  ZEST_ASSIGN_OR_RETURN(HostPort ollama, ParseHostPort(s.ollama_listen, "server.ollama_listen"));
  return CheckHostSafety(ollama.host, s, auth);
}

Result<http::ServerOptions> OllamaListenerOptions(const config::Settings& s,
                                                  std::shared_ptr<http::Authenticator> auth) {
  ZEST_ASSIGN_OR_RETURN(HostPort address, ParseHostPort(s.ollama_listen, "server.ollama_listen"));
  http::ServerOptions o = GatewayOptions(s, std::move(auth));
  o.host = address.host;
  o.port = address.port;
  return o;
}

http::ServerOptions GatewayOptions(const config::Settings& s,
                                   std::shared_ptr<http::Authenticator> auth) {
  http::ServerOptions o;
  o.host = s.host;
  o.port = s.port;
  o.max_body_bytes = s.max_body_bytes;
  o.max_body_memory_bytes = s.max_body_memory_mb << 20;
  o.max_header_bytes = s.max_header_bytes;
  o.header_timeout = std::chrono::seconds(s.header_timeout_s);
  o.body_timeout = std::chrono::seconds(s.body_timeout_s);
  o.idle_timeout = std::chrono::seconds(s.idle_timeout_s);
  o.max_connections_per_client = s.max_connections_per_client;
  o.max_connections = s.max_connections;
  o.max_json_depth = s.max_json_depth;
  o.cors_origins = http::SplitOrigins(s.cors_origins);
  o.allowed_hosts = http::SplitOrigins(s.allowed_hosts);
  o.auth = std::move(auth);
  o.tls_cert = s.tls_cert;
  o.tls_key = s.tls_key;
  return o;
}

Result<http::ServerOptions> RedirectOptions(const config::Settings& s, uint16_t tls_port) {
  if (s.tls_cert.empty() || s.tls_key.empty()) {
    return InvalidArgument("server.https_redirect_port needs TLS (--tls-cert and --tls-key)");
  }
  http::ServerOptions o;
  o.host = s.host;
  o.port = s.https_redirect_port;
  o.max_header_bytes = s.max_header_bytes;
  // The body is never read, so its declared size must not turn the 308
  // into a 413 (the parser checks Content-Length against this limit).
  o.max_body_bytes = std::numeric_limits<std::size_t>::max();
  o.header_timeout = std::chrono::seconds(s.header_timeout_s);
  o.max_connections_per_client = s.max_connections_per_client;
  o.max_connections = s.max_connections;
  o.redirect_to_https_port = tls_port;
  o.allowed_hosts = http::SplitOrigins(s.allowed_hosts);
  return o;
}

void ReloadOnHangup(boost::asio::signal_set& signals, const std::vector<http::Server*>& servers,
                    http::Authenticator& auth) {
  signals.async_wait([&signals, servers, &auth](const boost::system::error_code& ec, int) {
    if (ec) return;  // cancelled: shutting down
    NotifyReloading();
    for (http::Server* server : servers) {
      if (Status st = server->ReloadTls(); !st.ok()) {
        spdlog::error("SIGHUP: keeping the old TLS certificate: {}", st.message());
      } else if (server->tls()) {
        spdlog::info("SIGHUP: TLS certificate reloaded for new connections on port {}",
                     server->port());
      }
    }
    if (Status st = auth.Reload(); !st.ok()) {
      spdlog::error("SIGHUP: keeping the old keys: {}", st.message());
    }
    NotifyService("READY=1\nSTATUS=reloaded TLS certificates and keys");
    ReloadOnHangup(signals, servers, auth);
  });
}

}  // namespace zest::app
