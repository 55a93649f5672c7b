// ggml's RPC backend (llama.cpp), which spreads one model over machines: a
// worker runs `ggml-rpc-server`, which serves one device of its machine
// over TCP; the head's llama-server adds workers with `--rpc HOST:PORT,...`
// and sees the device of the k-th of them as "RPCk". The protocol has no
// authentication and no encryption: a worker belongs on a private network
// or behind a tunnel. Everything zest knows of the RPC backend is here.
// Pure: builds names and argument lists, starts nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::engines {

inline constexpr const char* kRpcServerName = "ggml-rpc-server";
inline constexpr uint16_t kRpcDefaultPort = 50052;

// Where Debian's llama.cpp-tools-extra installs ggml-rpc-server (not on
// PATH): /usr/libexec/<multiarch triplet>/llama/bin/ggml-rpc-server.
std::filesystem::path RpcServerRootfsPath();

// zest's name for a worker's device, in plans, `zest ps` and
// /api/v1/health: "rpc:HOST:PORT". The engine's own name ("RPCk") depends
// on the order of its --rpc list, so it is worked out per engine (below).
std::string RpcDeviceName(std::string_view endpoint);
// The endpoint of an RpcDeviceName; nullopt for any other device.
std::optional<std::string> RpcEndpointOf(std::string_view device);

// llama-server's flags for the workers of one engine: "--rpc A,B" and the
// engine's device name for each of zest's: `devices` may mix local devices
// ("Vulkan0", passed as they are) and RpcDeviceNames, which become "RPCk" by
// the order of `rpc_servers`. kInvalidArgument for a worker device whose
// endpoint is not in `rpc_servers`.
Result<std::vector<std::string>> EngineDeviceNames(const std::vector<std::string>& devices,
                                                   const std::vector<std::string>& rpc_servers);

struct RpcServerOptions {
  std::string host = "127.0.0.1";  // the address it listens on
  uint16_t port = kRpcDefaultPort;
  int threads = 0;     // CPU threads (-t); 0 = ggml-rpc-server's default (1)
  std::string device;  // -d: the one device it serves ("CPU", "CUDA0"); empty = its default
  // -c: keep tensors the head sent in a cache on disk, so a reload of the
  // same model sends only hashes. It goes to $LLAMA_CACHE: the caller binds
  // a directory writable and sets the variable.
  bool cache = false;
};

// argv starting with "ggml-rpc-server": -H HOST -p PORT [-t N] [-d DEV] [-c].
// Pass it to EngineLocation::Command.
std::vector<std::string> RpcServerArgs(const RpcServerOptions& options);

// Whether `host` is one only this machine or a private network can reach:
// loopback, RFC 1918, link-local, IPv6 unique-local. Anything else (a
// wildcard, a public address, a name) may be reachable from anywhere.
bool IsPrivateAddress(std::string_view host);

// Where a worker may listen: an IPv4 address (ggml-rpc-server binds IPv4
// only) of a private network or loopback, or, with `insecure`, any IPv4
// address (the wildcard, a public one). kInvalidArgument saying why and
// what to do otherwise.
Status CheckWorkerAddress(std::string_view host, bool insecure);

}  // namespace zest::engines
