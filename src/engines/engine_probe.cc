#include "engines/engine_probe.h"

#include <regex>
#include <sstream>
#include <string_view>

#include "engines/process.h"
#include "engines/rpc_backend.h"

namespace zest::engines {
namespace {

constexpr std::size_t kOutputLines = 2000;  // far more than either command prints
constexpr std::size_t kErrorTailLines = 8;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string Join(const std::vector<std::string>& lines, std::size_t from, const char* sep) {
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (!out.empty()) out += sep;
    out += lines[i];
  }
  return out;
}

// ggml_abort prints a backtrace, one "/usr/lib/...so(+0x150c5) [0x7fc8...]"
// line per frame, after the message that says what went wrong.
bool IsBacktraceLine(std::string_view line) {
  line = Trim(line);
  return !line.empty() && line.back() == ']' && line.find(" [0x") != std::string_view::npos;
}

// Runs the engine with one flag and returns everything it printed, or why it
// failed. Waiting polls ExitStatus (a probe is rare and short).
Result<std::string> RunEngine(const EngineLocation& location, const std::string& flag,
                              const ProbeOptions& options) {
  std::vector<std::string> args = {"llama-server"};
  args.insert(args.end(), options.args.begin(), options.args.end());
  args.push_back(flag);
  SpawnOptions spawn;
  spawn.argv = location.Command(args, {}, /*own_network=*/!options.network);
  spawn.env = location.Environment(options.env);
  spawn.clear_env = true;
  spawn.ring_lines = kOutputLines;
  ZEST_ASSIGN_OR_RETURN(auto process, Process::Spawn(spawn));
  const bool timed_out = !process->WaitForExit(options.timeout);
  process->Terminate(std::chrono::milliseconds(500));  // also waits for the last output
  std::vector<std::string> lines = process->output().Tail(kOutputLines);
  std::vector<std::string> said;  // what it said, without an abort's backtrace
  for (const std::string& line : lines) {
    if (!IsBacktraceLine(line) && !Trim(line).empty()) said.push_back(line);
  }
  std::string tail =
      Join(said, said.size() > kErrorTailLines ? said.size() - kErrorTailLines : 0, " | ");
  if (timed_out) {
    return Status(ErrorCode::kTimeout, "llama-server " + flag + " did not finish within " +
                                           std::to_string(options.timeout.count()) +
                                           " ms: " + tail);
  }
  int status = *process->ExitStatus();
  if (status != 0) {
    return EngineFailed("llama-server " + flag + " " + Process::DescribeExit(status) + ": " + tail);
  }
  return Join(lines, 0, "\n");
}

}  // namespace

std::string ParseVersion(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  constexpr std::string_view kPrefix = "version:";
  while (std::getline(in, line)) {
    std::string_view text = Trim(line);
    if (text.substr(0, kPrefix.size()) == kPrefix)
      return std::string(Trim(text.substr(kPrefix.size())));
  }
  return "";
}

namespace {

// ggml's backends that compute on the CPU itself ("CPU", "BLAS").
bool IsCpuBackend(std::string_view name) {
  return name.starts_with("CPU") || name.starts_with("BLAS");
}

}  // namespace

EngineDevice DescribedDevice(std::string name, std::string description) {
  constexpr uint64_t kMiB = 1ull << 20;
  EngineDevice device;
  device.name = std::move(name);
  device.description = std::move(description);
  // "llvmpipe (LLVM 19.1.7, 256 bits) (24105 MiB, 24105 MiB free)"
  static const std::regex kMemory(R"(\((\d+) MiB, (\d+) MiB free\))");
  std::smatch m;
  if (std::regex_search(device.description, m, kMemory)) {
    device.total_bytes = std::stoull(m[1].str()) * kMiB;
    device.free_bytes = std::stoull(m[2].str()) * kMiB;
  }
  device.software = device.description.find("llvmpipe") != std::string::npos;
  return device;
}

std::vector<EngineDevice> ParseDeviceList(const std::string& output) {
  std::vector<EngineDevice> devices;
  std::istringstream in(output);
  std::string line;
  bool in_list = false;
  while (std::getline(in, line)) {
    std::string_view text = Trim(line);
    if (!in_list) {
      in_list = text == "Available devices:";
      continue;
    }
    // The list is indented; the first unindented line (a log line) ends it.
    if (line.empty() || (line.front() != ' ' && line.front() != '\t')) break;
    auto colon = text.find(": ");
    if (colon == std::string_view::npos ||
        text.substr(0, colon).find(' ') != std::string_view::npos) {
      continue;  // "(none)" or something we do not understand
    }
    if (IsCpuBackend(text.substr(0, colon))) continue;
    devices.push_back(DescribedDevice(std::string(text.substr(0, colon)),
                                      std::string(Trim(text.substr(colon + 2)))));
  }
  return devices;
}

Result<EngineInfo> ProbeEngine(const EngineLocation& location) { return ProbeEngine(location, {}); }

Result<EngineDevice> ProbeRpcWorker(const EngineLocation& location, const std::string& endpoint,
                                    std::chrono::milliseconds timeout) {
  ProbeOptions options;
  options.args = {"--rpc", endpoint};
  options.network = true;
  options.timeout = timeout;
  Result<std::string> output = RunEngine(location, "--list-devices", options);
  if (!output.ok()) {
    const std::string& why = output.status().message();
    std::string reason = why;
    if (why.find("Failed to connect") != std::string::npos) reason = "cannot connect";
    if (output.status().code() == ErrorCode::kTimeout) {
      reason = "no answer within " + std::to_string(timeout.count() / 1000) +
               " s: down, or busy with another head (a worker serves one engine at a time)";
    }
    return Unavailable("RPC worker " + endpoint + " is unreachable (" + reason + ")");
  }
  for (EngineDevice& device : ParseDeviceList(*output)) {
    if (device.name.rfind("RPC", 0) != 0) continue;
    device.name = RpcDeviceName(endpoint);
    return std::move(device);
  }
  return Unavailable("RPC worker " + endpoint + ": llama-server lists no RPC device (" + *output +
                     "); does its build have the RPC backend (libggml0-backend-rpc)?");
}

Result<EngineInfo> ProbeEngine(const EngineLocation& location, const ProbeOptions& options) {
  ZEST_ASSIGN_OR_RETURN(std::string version_output, RunEngine(location, "--version", options));
  EngineInfo info;
  info.location = location;
  info.version = ParseVersion(version_output);
  if (info.version.empty()) {
    return EngineFailed("llama-server --version printed no version line: " + version_output);
  }
  ZEST_ASSIGN_OR_RETURN(std::string devices_output, RunEngine(location, "--list-devices", options));
  info.devices = ParseDeviceList(devices_output);
  return info;
}

}  // namespace zest::engines
