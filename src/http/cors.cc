#include "http/cors.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>

#include "http/url_host.h"

namespace zest::http {
namespace {

// The host of an origin "http(s)://authority" (nothing after the
// authority), lower-cased; empty when it is not one.
std::string OriginHost(std::string_view origin, std::string_view* authority = nullptr) {
  std::string_view rest;
  std::string host = UrlHost(origin, authority, &rest);
  return rest.empty() ? host : std::string();
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
