// HostPolicy: which names a request's Host header may use, the guard
// against DNS rebinding (a hostile page whose own name is made to resolve
// to 127.0.0.1 would otherwise talk to a keyless zest as a "same-origin"
// page). Allowed: no Host at all (not a browser), any IP address literal
// (an address cannot be rebound), localhost and *.localhost, the bind
// address's name, this machine's host name (and NAME.local), and
// server.allowed_hosts (exact names, or ".example.com" for it and its
// subdomains). Names compare case-insensitively, without the port.
// Immutable; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zest::http {

class HostPolicy {
 public:
  HostPolicy() = default;
  // `bind_host`: the address or name the server listens on; `allowed`:
  // further names; `machine_name`: this host's name (gethostname).
  HostPolicy(std::string_view bind_host, const std::vector<std::string>& allowed,
             std::string_view machine_name);

  bool Allows(std::string_view host_header) const;

  // The name part of a Host header ("Example.com:80" → "example.com",
  // "[::1]:80" → "[::1]"), lower-cased, or nullopt when it is not a plain
  // name or address.
  static std::optional<std::string> Name(std::string_view host_header);

 private:
  std::vector<std::string> names_;     // exact, lower case
  std::vector<std::string> suffixes_;  // ".example.com"
};

// This machine's host name, as gethostname gives it ("" when unknown).
std::string MachineName();

}  // namespace zest::http
