#include "core/host_port.h"

namespace zest {

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
  if (host.empty() || !digits || number > 65535) {
    return InvalidArgument(std::string(what) + ": \"" + std::string(text) +
                           "\" is not HOST:PORT (e.g. \"127.0.0.1:11434\")");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(number)};
}

}  // namespace zest
