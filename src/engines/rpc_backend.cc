#include "engines/rpc_backend.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>

namespace zest::engines {
namespace {

constexpr std::string_view kDevicePrefix = "rpc:";

// Debian's multiarch directory for this build's architecture.
constexpr const char* kMultiarch =
#if defined(__x86_64__)
    "x86_64-linux-gnu";
#elif defined(__aarch64__)
    "aarch64-linux-gnu";
#else
    "unknown-linux-gnu";
#endif

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

std::filesystem::path RpcServerRootfsPath() {
  return std::filesystem::path("/usr/libexec") / kMultiarch / "llama/bin" / kRpcServerName;
}

std::string RpcDeviceName(std::string_view endpoint) {
  return std::string(kDevicePrefix) + std::string(endpoint);
}

std::optional<std::string> RpcEndpointOf(std::string_view device) {
  if (device.substr(0, kDevicePrefix.size()) != kDevicePrefix) return std::nullopt;
  return std::string(device.substr(kDevicePrefix.size()));
}

Result<std::vector<std::string>> EngineDeviceNames(const std::vector<std::string>& devices,
                                                   const std::vector<std::string>& rpc_servers) {
  std::vector<std::string> names;
  for (const std::string& device : devices) {
    std::optional<std::string> endpoint = RpcEndpointOf(device);
    if (!endpoint) {
      names.push_back(device);
      continue;
    }
    auto at = std::find(rpc_servers.begin(), rpc_servers.end(), *endpoint);
    if (at == rpc_servers.end()) {
      return InvalidArgument("device " + device + " is not among the engine's RPC workers (" +
                             Join(rpc_servers) + ")");
    }
    names.push_back("RPC" + std::to_string(at - rpc_servers.begin()));
  }
  return names;
}

std::vector<std::string> RpcServerArgs(const RpcServerOptions& o) {
  std::vector<std::string> argv = {kRpcServerName, "-H", o.host, "-p", std::to_string(o.port)};
  if (o.threads > 0) argv.insert(argv.end(), {"-t", std::to_string(o.threads)});
  if (!o.device.empty()) argv.insert(argv.end(), {"-d", o.device});
  if (o.cache) argv.push_back("-c");
  return argv;
}

bool IsPrivateAddress(std::string_view host) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  if (ec) return false;  // a name: it may resolve to anything
  if (address.is_loopback()) return true;
  if (address.is_v4()) {
    const auto b = address.to_v4().to_bytes();
    return b[0] == 10 || (b[0] == 172 && (b[1] & 0xf0) == 16) || (b[0] == 192 && b[1] == 168) ||
           (b[0] == 169 && b[1] == 254);
  }
  const auto v6 = address.to_v6();
  if (v6.is_v4_mapped()) {
    return IsPrivateAddress(
        boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6).to_string());
  }
  const auto b = v6.to_bytes();
  return v6.is_link_local() || (b[0] & 0xfe) == 0xfc;  // fe80::/10, fc00::/7
}

Status CheckWorkerAddress(std::string_view host, bool insecure) {
  boost::system::error_code ec;
  boost::asio::ip::make_address_v4(std::string(host), ec);
  if (ec) {
    return InvalidArgument("cannot listen on '" + std::string(host) +
                           "': ggml-rpc-server listens on an IPv4 address only (e.g. 10.0.0.2)");
  }
  if (insecure || IsPrivateAddress(host)) return Status::Ok();
  return InvalidArgument(
      "refusing to listen on '" + std::string(host) +
      "': ggml's RPC protocol has no authentication, so anyone who reaches the port can run "
      "work on this machine and read what it holds. Give an address of a private network "
      "(10.x, 172.16-31.x, 192.168.x, a WireGuard or SSH tunnel's) or loopback; "
      "--insecure listens anyway");
}

}  // namespace zest::engines
