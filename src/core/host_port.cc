#include "core/host_port.h"

namespace zest {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A DNS name or an IPv4 address: labels of letters, digits and inner
// hyphens (underscores too, which some LANs use), joined by dots.
bool IsHostName(std::string_view host) {
  if (host.size() > 253) return false;
  std::size_t start = 0;
  while (start <= host.size()) {
    std::size_t dot = host.find('.', start);
    if (dot == std::string_view::npos) dot = host.size();
    const std::string_view label = host.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!IsAlnum(c) && c != '-' && c != '_') return false;
    }
    start = dot + 1;
  }
  return true;
}

// An IPv6 address: hex digits, colons and dots (an embedded IPv4 address),
// and an optional zone after '%' ("fe80::1%eth0").
bool IsIpv6(std::string_view host) {
  const std::size_t percent = host.find('%');
  const std::string_view address = host.substr(0, percent);
  if (address.find(':') == std::string_view::npos) return false;
  for (char c : address) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != ':' && c != '.') return false;
  }
  if (percent == std::string_view::npos) return true;
  const std::string_view zone = host.substr(percent + 1);
  if (zone.empty() || zone.size() > 15) return false;
  for (char c : zone) {
    if (!IsAlnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

}  // namespace

Result<HostPort> ParseHostPort(std::string_view text, std::string_view what) {
  const std::size_t colon = text.rfind(':');
  std::string_view host = colon == std::string_view::npos ? "" : text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string_view port = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  const bool digits = !port.empty() && port.size() <= 5 &&
                      port.find_first_not_of("0123456789") == std::string_view::npos;
  const unsigned long number = digits ? std::stoul(std::string(port)) : 0;
  // An allow-list, not a parse of everything a resolver might take: the
  // host lands in command lines and config files (zest haproxy-config), where
  // a space, a newline or a quote would change their meaning.
  const bool host_ok = !host.empty() && (IsHostName(host) || IsIpv6(host));
  if (!host_ok || !digits || number > 65535) {
    return InvalidArgument(std::string(what) + ": \"" + std::string(text) +
                           "\" is not HOST:PORT (e.g. \"127.0.0.1:11434\")");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(number)};
}

}  // namespace zest
