#include "cli/haproxy_config.h"

#include <fmt/format.h>

#include "core/host_port.h"

namespace zest::cli {
namespace {

// HAProxy reads "::1:9378" as address ::1, port 9378: no brackets.
std::string Address(const HostPort& a) { return a.host + ":" + std::to_string(a.port); }

Result<HostPort> NonZeroPort(const std::string& text, std::string_view what) {
  ZEST_ASSIGN_OR_RETURN(HostPort a, ParseHostPort(text, what));
  if (a.port == 0) return InvalidArgument(std::string(what) + ": port 0 is no address to reach");
  return a;
}

// A path HAProxy reads as one word: letters, digits and . _ - + @ = , /
// only. A space, quote or newline would split it or add a directive.
Status CheckPemPath(const std::string& path) {
  const bool ok = !path.empty() && path.front() != '-' &&
                  path.find_first_not_of(
                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789._-+@=,/") == std::string::npos;
  if (ok) return Status::Ok();
  return InvalidArgument("--tls: \"" + path +
                         "\" is not a plain path (letters, digits and . _ - + @ = , / only)");
}

// The header, and what every proxy shares: process limits, buffers,
// timeouts and retries.
std::string GlobalAndDefaults(std::size_t nodes, const std::string& version) {
  return fmt::format(
      R"(# haproxy.cfg for {nodes} zest node(s), made by `zest haproxy-config` (zest {version}).
# Check it with `haproxy -c -f haproxy.cfg`; see docs/scale-out.md.

global
    log /dev/log local0
    maxconn 4096
    # The frontend reads a request's body before it picks a node (the model
    # and the session are in it), and json_query reads nothing of a body cut
    # short. Coding agents send their whole context each turn, often past
    # 100 KiB: in HAProxy's default 16 KiB buffer such a request would go to
    # any node. 1 MiB holds about 250,000 tokens of context; a buffer is
    # taken only while data is in flight (two a request: up to 2 MiB each).
    tune.bufsize 1048576

defaults
    mode http
    log global
    option httplog
    # A cold load can take minutes before the first byte, and an answer can
    # stream for as long again: the server and client timeouts are long,
    # the connect timeout short (a node that does not answer is skipped).
    timeout connect 5s
    timeout client 15m
    timeout server 15m
    timeout http-request 30s
    timeout http-keep-alive 60s
    # Waiting in HAProxy's own queue for a node's connection slot.
    timeout queue 2m
    # Retry, on another node, only requests that got no byte back: the
    # node refused or did not answer the connection, or closed it without a
    # response (it died, as zest sends nothing before an answer's first
    # byte, or it closed an idle kept-alive connection as the request was
    # sent). zest retries on its engines by the same rule; a request that
    # got part of an answer is never repeated.
    retries 3
    retry-on conn-failure empty-response
    option redispatch 1

)",
      fmt::arg("nodes", nodes), fmt::arg("version", version));
}

// Where clients connect: reads each request's model and session.
std::string Frontend(const std::string& bind) {
  return fmt::format(
      R"(frontend zest
    bind {bind}
    # The body is read before a node is picked: the backend hashes its
    # "model" field, and the conversation's session when it names one.
    option http-buffer-request
    http-request set-var(txn.zest_model) req.body,json_query('$.model')
    # The session as zest reads it (docs/scheduling.md): the X-Session-Id
    # header, else OpenAI's prompt_cache_key, else Anthropic's
    # metadata.user_id.
    http-request set-var(txn.zest_session) req.hdr(X-Session-Id) if {{ req.hdr(X-Session-Id) -m found }}
    http-request set-var(txn.zest_session) req.body,json_query('$.prompt_cache_key') unless {{ var(txn.zest_session) -m found }}
    http-request set-var(txn.zest_session) req.body,json_query('$.metadata.user_id') unless {{ var(txn.zest_session) -m found }}
    default_)",
      fmt::arg("bind", bind));
}

// The nodes, hashed by model and session.
std::string Backend(int maxconn, const std::string& servers) {
  return fmt::format(
      R"(backend zest_nodes

backend zest_nodes
    # Model affinity: one node per model while it is up, so each model is
    # loaded once in the cluster; a request of a session hashes its model
    # and its session, so a model's conversations spread over the nodes and
    # each stays on its node, where the engine's prompt cache holds it.
    # Consistent hashing moves only what hashed to a node that goes away.
    # Requests without a JSON "model" (GET /v1/models, uploads) have
    # nothing to hash: HAProxy takes turns over the nodes for them.
    balance hash var(txn.zest_model),concat(/,txn.zest_session,)
    hash-type consistent
    # Readiness, not liveness: a draining node (SIGTERM) answers 503 here
    # while it finishes what it runs, and gets no new work.
    option httpchk GET /ready
    http-check expect status 200
    # At most {maxconn} requests at once per node; zest queues by priority
    # behind its engines' slots, HAProxy queues anything past this.
    default-server inter 1s fall 2 rise 2 maxconn {maxconn}
{servers})",
      fmt::arg("maxconn", maxconn), fmt::arg("servers", servers));
}

}  // namespace

Result<std::string> HaproxyConfig(const HaproxyOptions& o) {
  ZEST_ASSIGN_OR_RETURN(HostPort listen, NonZeroPort(o.listen, "--listen"));
  if (o.nodes.empty()) return InvalidArgument("--node: name at least one zest node (ADDR:PORT)");
  if (o.maxconn_per_node <= 0) return InvalidArgument("--maxconn: must be at least 1");
  if (!o.tls_pem.empty()) ZEST_RETURN_IF_ERROR(CheckPemPath(o.tls_pem));
  std::string servers;
  for (std::size_t i = 0; i < o.nodes.size(); ++i) {
    ZEST_ASSIGN_OR_RETURN(HostPort node, NonZeroPort(o.nodes[i], "--node"));
    servers += fmt::format("    server node{} {} check\n", i + 1, Address(node));
  }
  const std::string bind =
      o.tls_pem.empty() ? Address(listen) : Address(listen) + " ssl crt " + o.tls_pem;
  return GlobalAndDefaults(o.nodes.size(), o.version) + Frontend(bind) +
         Backend(o.maxconn_per_node, servers);
}

}  // namespace zest::cli
