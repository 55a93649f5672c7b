// CorsPolicy: which web origins may call the API from a browser. Allowed:
// the exact origins configured (server.cors_origins, "scheme://host[:port]"),
// loopback origins (http(s)://localhost, 127.0.0.0/8, [::1], any port), and
// the server's own origin when the Host header is an IP address literal (a
// page zest itself serves; an IP literal cannot be a DNS-rebinding name).
// Unknown origins are never reflected: their requests are refused (403), so
// a hostile page cannot even fire "simple" cross-origin requests that skip
// the preflight. Immutable; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zest::http {

class CorsPolicy {
 public:
  CorsPolicy() = default;
  explicit CorsPolicy(std::vector<std::string> origins);

  // Whether a request with this Origin header may be served. `origin` must
  // be non-empty (requests without Origin are not cross-origin); `host` is
  // the request's Host header.
  bool Allows(std::string_view origin, std::string_view host) const;

  static bool IsLoopbackOrigin(std::string_view origin);

 private:
  std::vector<std::string> origins_;
};

// "a, b,c" → {"a", "b", "c"} (server.cors_origins as text); trailing
// slashes dropped.
std::vector<std::string> SplitOrigins(std::string_view text);

}  // namespace zest::http
