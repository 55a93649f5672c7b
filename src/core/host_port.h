// "HOST:PORT" addresses as flags and settings spell them ("127.0.0.1:11434",
// "[::1]:9378", "node-a:9378"). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace zest {

struct HostPort {
  std::string host;  // without the brackets of an IPv6 address
  uint16_t port = 0;
};

// kInvalidArgument naming `what` (the flag or setting) unless `text` is a
// host, a colon and a port from 0 to 65535 (0: any free port, where the
// caller allows it). A host is a DNS name or IPv4 address (letters, digits,
// inner hyphens and underscores, dot-separated labels) or an IPv6 address,
// bracketed or not, with an optional %zone: nothing else, so a host can go
// into a command line or a config file as it is.
Result<HostPort> ParseHostPort(std::string_view text, std::string_view what);

}  // namespace zest
