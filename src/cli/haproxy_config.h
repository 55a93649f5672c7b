// `zest haproxy-config`: a complete haproxy.cfg for Debian's HAProxy (2.6)
// in front of several zest nodes that serve the same models:
//   - health checks on GET /ready, so a draining node (SIGTERM) leaves the
//     pool before it closes its listener;
//   - model affinity: the backend hashes the `model` field of the JSON body
//     (buffered) onto the nodes with consistent hashing, so each model is
//     loaded on one node, and only its requests move when a node goes;
//   - timeouts for long streams and slow cold loads;
//   - retries only for requests that never reached a node (connection
//     failures), on another node;
//   - a connection limit per node (HAProxy queues the rest).
// Pure: the command prints what this returns.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace zest::cli {

struct HaproxyOptions {
  std::string listen;              // "ADDR:PORT" HAProxy binds
  std::vector<std::string> nodes;  // "ADDR:PORT" of each zest node
  std::string tls_pem;             // certificate and key (one PEM) to serve HTTPS; "" = HTTP
  int maxconn_per_node = 64;
  std::string version;  // zest's, for the header
};

// The config text; kInvalidArgument for a malformed address, no nodes, or
// a non-positive maxconn.
Result<std::string> HaproxyConfig(const HaproxyOptions& options);

}  // namespace zest::cli
