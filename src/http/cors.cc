#include "http/cors.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>

namespace zest::http {
namespace {

// The host part of an origin's authority: "localhost", "127.0.0.1", "::1".
// Empty when the origin is not "http(s)://authority".
std::string OriginHost(std::string_view origin, std::string_view* authority = nullptr) {
  std::size_t scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string_view scheme = origin.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return {};
  std::string_view rest = origin.substr(scheme_end + 3);
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string_view::npos) return {};
  if (authority) *authority = rest;
  if (rest.front() == '[') {
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return {};
    return std::string(rest.substr(1, close - 1));
  }
  return std::string(rest.substr(0, rest.find(':')));
}

bool IsIpLiteral(std::string_view host_header) {
  std::string host(host_header);
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.find(']') - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    host = host.substr(0, host.find(':'));
  }
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

CorsPolicy::CorsPolicy(std::vector<std::string> origins) : origins_(std::move(origins)) {}

bool CorsPolicy::IsLoopbackOrigin(std::string_view origin) {
  std::string host = OriginHost(origin);
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (host == "localhost") return true;
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

bool CorsPolicy::Allows(std::string_view origin, std::string_view host) const {
  if (std::find(origins_.begin(), origins_.end(), origin) != origins_.end()) return true;
  if (IsLoopbackOrigin(origin)) return true;
  std::string_view authority;
  if (OriginHost(origin, &authority).empty()) return false;
  return !host.empty() && authority == host && IsIpLiteral(host);
}

std::vector<std::string> SplitOrigins(std::string_view text) {
  std::vector<std::string> origins;
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
      item.remove_prefix(1);
    while (!item.empty() &&
           (std::isspace(static_cast<unsigned char>(item.back())) || item.back() == '/')) {
      item.remove_suffix(1);
    }
    if (!item.empty()) origins.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return origins;
}

}  // namespace zest::http
