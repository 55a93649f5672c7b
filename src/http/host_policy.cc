#include "http/host_policy.h"

#include <unistd.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>

#include "core/strings.h"

namespace zest::http {
namespace {

bool IsAddress(std::string_view name) {
  if (name.starts_with('[') && name.ends_with(']')) name = name.substr(1, name.size() - 2);
  boost::system::error_code ec;
  boost::asio::ip::make_address(std::string(name), ec);
  return !ec;
}

void AddName(std::string_view name, std::vector<std::string>& names,
             std::vector<std::string>& suffixes) {
  std::string lower = AsciiLower(name);
  if (lower.empty()) return;
  if (lower.front() == '.') {
    suffixes.push_back(lower);
  } else {
    names.push_back(lower);
  }
}

}  // namespace

HostPolicy::HostPolicy(std::string_view bind_host, const std::vector<std::string>& allowed,
                       std::string_view machine_name) {
  AddName("localhost", names_, suffixes_);
  AddName(".localhost", names_, suffixes_);
  AddName(bind_host, names_, suffixes_);
  if (!machine_name.empty()) {
    AddName(machine_name, names_, suffixes_);
    AddName(std::string(machine_name) + ".local", names_, suffixes_);
  }
  for (const std::string& name : allowed) AddName(name, names_, suffixes_);
}

std::optional<std::string> HostPolicy::Name(std::string_view host) {
  if (host.starts_with('[')) {
    std::size_t close = host.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view inside = host.substr(1, close - 1);
    bool ok = !inside.empty() &&
              inside.find_first_not_of("0123456789abcdefABCDEF:.") == std::string_view::npos;
    std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return std::nullopt;
    return ok ? std::optional<std::string>(AsciiLower(host.substr(0, close + 1))) : std::nullopt;
  }
  std::size_t colon = host.find(':');
  std::string_view name = host.substr(0, colon);
  if (colon != std::string_view::npos) {
    std::string_view port = host.substr(colon + 1);
    if (port.empty() || port.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
  }
  constexpr std::string_view kAllowed =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
  if (name.empty() || name.find_first_not_of(kAllowed) != std::string_view::npos) {
    return std::nullopt;
  }
  std::string lower = AsciiLower(name);
  if (lower.ends_with('.')) lower.pop_back();  // "localhost." is localhost
  return lower;
}

bool HostPolicy::Allows(std::string_view host_header) const {
  if (host_header.empty()) return true;
  std::optional<std::string> name = Name(host_header);
  if (!name) return false;
  if (IsAddress(*name)) return true;
  if (std::find(names_.begin(), names_.end(), *name) != names_.end()) return true;
  return std::any_of(suffixes_.begin(), suffixes_.end(), [&name](const std::string& suffix) {
    return name->ends_with(suffix) || *name == suffix.substr(1);
  });
}

std::string MachineName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

}  // namespace zest::http
