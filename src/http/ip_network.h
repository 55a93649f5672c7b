// IpNetwork: an address range written "10.0.0.0/8", "fd00::/8" or a single
// address ("127.0.0.1" is 127.0.0.1/32), and whether an address is
// globally reachable on the internet.
//
// zest fetches chat images from the hosts an operator allows by name; a
// name is only a name, and its owner may point it at 127.0.0.1 or the
// router between one lookup and the next (DNS rebinding). So the address
// zest connects to is checked too: it must be globally reachable, or lie
// in a range the operator listed by address. Pure.
#pragma once

#include <sys/socket.h>

#include <boost/asio/ip/address.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace zest::http {

class IpNetwork {
 public:
  // "a.b.c.d", "a.b.c.d/len", an IPv6 address with or without "/len";
  // nullopt for anything else (a host name, a length out of range).
  static std::optional<IpNetwork> Parse(std::string_view text);

  // Whether `address` lies in this range; an IPv4 address written as
  // IPv6 (::ffff:a.b.c.d) counts as the IPv4 one.
  bool Contains(const boost::asio::ip::address& address) const;

  std::string ToString() const;

 private:
  IpNetwork(const boost::asio::ip::address& base, int prefix) : base_(base), prefix_(prefix) {}
  boost::asio::ip::address base_;
  int prefix_ = 0;
};

// Globally reachable as IANA's special-purpose registries define it
// (RFC 6890 and its updates): IPv4 outside this host, private, shared
// (CGNAT), link-local, documentation, benchmarking, multicast and reserved
// ranges; IPv6 inside global unicast (2000::/3) and outside its
// documentation, 6to4 and Teredo ranges (which carry IPv4 addresses of any
// kind). An IPv4-mapped IPv6 address is judged as its IPv4 address.
bool IsGloballyReachable(const boost::asio::ip::address& address);

// The address of an AF_INET or AF_INET6 socket address; nullopt for other
// families.
std::optional<boost::asio::ip::address> AddressOf(const sockaddr* address);

}  // namespace zest::http
