#include "http/client_group.h"

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

namespace zest::http {

namespace ip = boost::asio::ip;

std::string ClientGroup(std::string_view address) {
  boost::system::error_code ec;
  ip::address parsed = ip::make_address(std::string(address), ec);
  if (ec) return std::string(address);
  if (parsed.is_v6() && parsed.to_v6().is_v4_mapped()) {
    parsed = ip::make_address_v4(ip::v4_mapped, parsed.to_v6());
  }
  if (parsed.is_loopback()) return "loopback";
  if (parsed.is_v4()) return parsed.to_string();
  ip::address_v6::bytes_type bytes = parsed.to_v6().to_bytes();
  for (std::size_t i = 8; i < bytes.size(); ++i) bytes[i] = 0;
  return ip::address_v6(bytes).to_string() + "/64";
}

}  // namespace zest::http
