#include "http/url_host.h"

#include <algorithm>
#include <cctype>

namespace zest::http {

std::string UrlHost(std::string_view url, std::string_view* authority, std::string_view* rest) {
  std::size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return {};
  std::string_view after = url.substr(scheme_end + 3);
  std::string_view auth = after.substr(0, after.find_first_of("/?#"));
  if (auth.empty() || auth.find_first_of("@ ") != std::string_view::npos) return {};
  std::string_view host = auth;
  if (host.front() == '[') {
    std::size_t close = host.find(']');
    if (close == std::string_view::npos) return {};
    host = host.substr(1, close - 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return {};
  if (authority) *authority = auth;
  if (rest) *rest = after.substr(auth.size());
  std::string lower(host);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace zest::http
