// The command line that starts FastFlowLM for one model: `flm serve TAG` in
// a network namespace of its own, behind zest's engine bridge
// (tcp_bridge.h), so zest reaches it on a UNIX socket like llama-server and
// nothing else on the machine reaches it at all. Pure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zest::engines {

// FastFlowLM's default port. Alone in its namespace, it is never taken.
inline constexpr uint16_t kFlmPort = 52625;

struct FlmOptions {
  std::filesystem::path flm;     // FastFlowLM's binary
  std::string checkpoint;        // its model tag, "llama3.2:1b"
  uint64_t ctx_len = 4096;       // --ctx-len
  std::filesystem::path socket;  // where zest connects
  std::filesystem::path zest;    // this binary, run as `zest engine-bridge`
  std::filesystem::path bwrap;   // bubblewrap; empty = "bwrap"
  // Hidden under an empty tmpfs (zest's home: keys, config, logs).
  std::vector<std::filesystem::path> hidden;
};

// bwrap with the host's filesystem and devices (SandboxView::kHostWritable:
// FastFlowLM needs /dev/accel and its models under $HOME) but the sandbox's
// own namespaces, network included, and `hidden` masked; inside it the
// bridge, which runs
// `flm serve TAG --ctx-len N --port kFlmPort --host 127.0.0.1 --quiet`.
std::vector<std::string> FlmCommand(const FlmOptions& options);

// FastFlowLM's whole environment: what locates its models and runtime
// (HOME, USER, PATH, the locale, XDG directories, XILINX_XRT) from zest's
// own, nothing else (not zest's keys or tokens).
std::vector<std::string> FlmEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

// The readiness probe's path: FastFlowLM has no /health (Lemonade probes
// its /api/tags); /v1/models is in its OpenAI API since 0.9.9 (release
// notes). Not tried against a real FastFlowLM: there is none here.
inline constexpr const char* kFlmReadyPath = "/v1/models";

}  // namespace zest::engines
