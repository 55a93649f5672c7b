// What an engine says about itself: `llama-server --version` and
// `--list-devices`. Blocking (runs the engine twice, a second or so): call
// from a blocking pool or at startup, never on an I/O thread.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"
#include "engines/engine_locator.h"
#include "hardware/engine_device.h"

namespace zest::engines {

// A device an engine reports (hardware/engine_device.h): the probe fills
// its memory and `software` from llama-server's own words.
using hardware::EngineDevice;

struct EngineInfo {
  EngineLocation location;
  std::string version;                // "0.7.0 (build 11669, commit Debian)"
  std::vector<EngineDevice> devices;  // empty: CPU only
};

struct ProbeOptions {
  std::vector<std::string> env;   // "K=V" for the engine, e.g. GGML_VK_VISIBLE_DEVICES=0
  std::vector<std::string> args;  // before the probing flag, e.g. {"--rpc", "10.0.0.2:50052"}
  bool network = false;           // share zest's network (to reach RPC workers)
  std::chrono::milliseconds timeout = std::chrono::seconds(20);  // per run; then killed
};

// Runs the engine through location.Command() (inside its sandbox for a
// rootfs). kEngineFailed when it exits non-zero or prints no version (the
// message carries its last output lines); kTimeout when a run hangs.
Result<EngineInfo> ProbeEngine(const EngineLocation& location);
Result<EngineInfo> ProbeEngine(const EngineLocation& location, const ProbeOptions& options);

// The device a ggml RPC worker (rpc_backend.h) serves, as llama-server sees
// it: `--rpc ENDPOINT --list-devices`, run with the network. The device is
// named as zest names a worker's (RpcDeviceName: "rpc:HOST:PORT"; the
// engine says RPC0); its description is "ENDPOINT (N MiB, M MiB free)",
// and its memory that. kUnavailable
// with the engine's reason ("Failed to connect to ...") when it cannot be
// reached: llama-server aborts at start-up then, so an engine must never be
// given a worker that did not answer.
Result<EngineDevice> ProbeRpcWorker(const EngineLocation& location, const std::string& endpoint,
                                    std::chrono::milliseconds timeout);

// Parsers for the two outputs, exposed for tests. Both skip ggml's log lines.
// ParseVersion: the text after "version: ", or "" when there is none.
std::string ParseVersion(const std::string& output);
// ParseDeviceList: the indented "NAME: DESCRIPTION" lines after
// "Available devices:"; "(none)" gives an empty list. ggml's CPU backends
// (CPU, BLAS) are left out: the CPU is placement's own device. Memory is
// read from the description's "(N MiB, M MiB free)"; llvmpipe is software.
std::vector<EngineDevice> ParseDeviceList(const std::string& output);
// One device from its name and description, read as ParseDeviceList does.
EngineDevice DescribedDevice(std::string name, std::string description);

}  // namespace zest::engines
