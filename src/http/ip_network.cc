#include "http/ip_network.h"

#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <span>

namespace zest::http {
namespace {

namespace ip = boost::asio::ip;

ip::address Unmapped(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  }
  return address;
}

template <size_t N>
bool SamePrefix(const std::array<unsigned char, N>& a, const std::array<unsigned char, N>& b,
                int prefix) {
  for (int bit = 0; bit < prefix; bit += 8) {
    const int bits = std::min(8, prefix - bit);
    const auto mask = static_cast<unsigned char>(0xFF << (8 - bits));
    if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) return false;
  }
  return true;
}

// The ranges of IANA's IPv4 special-purpose registry that are not globally
// reachable (192.0.0.9/32 and .10/32, the two global exceptions inside
// 192.0.0.0/24, are not worth an image fetch and stay out).
constexpr std::string_view kIpv4NotGlobal[] = {
    "0.0.0.0/8",     "10.0.0.0/8",      "100.64.0.0/10",  "127.0.0.0/8",    "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24",    "192.0.2.0/24",   "192.88.99.0/24", "192.168.0.0/16",
    "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4",    "240.0.0.0/4",
};
// Inside 2000::/3: documentation, 6to4 and the IETF protocol block
// (Teredo and the rest).
constexpr std::string_view kIpv6GlobalUnicast = "2000::/3";
constexpr std::string_view kIpv6NotGlobal[] = {"2001::/23", "2001:db8::/32", "2002::/16",
                                               "3fff::/20"};

bool InAny(const ip::address& address, std::span<const std::string_view> ranges) {
  for (std::string_view range : ranges) {
    if (IpNetwork::Parse(range)->Contains(address)) return true;
  }
  return false;
}

}  // namespace

std::optional<IpNetwork> IpNetwork::Parse(std::string_view text) {
  const size_t slash = text.find('/');
  boost::system::error_code ec;
  const ip::address base = ip::make_address(std::string(text.substr(0, slash)), ec);
  if (ec) return std::nullopt;
  const int width = base.is_v4() ? 32 : 128;
  int prefix = width;
  if (slash != std::string_view::npos) {
    std::string_view digits = text.substr(slash + 1);
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (digits.empty() || err != std::errc() || end != digits.data() + digits.size() ||
        prefix < 0 || prefix > width) {
      return std::nullopt;
    }
  }
  const ip::address unmapped = Unmapped(base);
  if (unmapped.is_v4() && base.is_v6()) {
    // ::ffff:a.b.c.d/len is the IPv4 range a.b.c.d/(len - 96).
    if (prefix < 96) return std::nullopt;
    prefix -= 96;
  }
  return IpNetwork(unmapped, prefix);
}

bool IpNetwork::Contains(const ip::address& address) const {
  const ip::address a = Unmapped(address);
  if (a.is_v4() != base_.is_v4()) return false;
  if (a.is_v4()) return SamePrefix(a.to_v4().to_bytes(), base_.to_v4().to_bytes(), prefix_);
  return SamePrefix(a.to_v6().to_bytes(), base_.to_v6().to_bytes(), prefix_);
}

std::string IpNetwork::ToString() const {
  return base_.to_string() + "/" + std::to_string(prefix_);
}

bool IsGloballyReachable(const ip::address& address) {
  const ip::address a = Unmapped(address);
  if (a.is_v4()) return !InAny(a, kIpv4NotGlobal);
  return IpNetwork::Parse(kIpv6GlobalUnicast)->Contains(a) && !InAny(a, kIpv6NotGlobal);
}

std::optional<ip::address> AddressOf(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return ip::address_v4(ntohl(in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    ip::address_v6::bytes_type bytes;
    std::copy(std::begin(in6->sin6_addr.s6_addr), std::end(in6->sin6_addr.s6_addr), bytes.begin());
    return ip::address_v6(bytes, in6->sin6_scope_id);
  }
  return std::nullopt;
}

}  // namespace zest::http
