// Finding llama-server. In order of preference: a configured path, the one
// on PATH ("system"), or a Debian sid rootfs provisioned by
// scripts/provision-engines.sh and run through bubblewrap.
// Pure lookup: reads the filesystem, starts nothing. Thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engines/sandbox.h"

namespace zest::engines {

enum class EngineSource { kConfigured, kSystem, kRootfs };
const char* EngineSourceName(EngineSource source);  // "configured", "system", "rootfs"

struct LocateOptions {
  std::filesystem::path configured;  // from the config; empty = none
  std::string path_env;              // the PATH to search; empty = skip
  std::filesystem::path rootfs;      // the rootfs (config's engine.rootfs); empty = none
  // The engine's whole environment ("K=V", EngineEnvironment in sandbox.h):
  // it inherits nothing from zest.
  std::vector<std::string> environment;
  std::string binary_name = "llama-server";  // on PATH, and in the rootfs's /usr/bin
  // Where the rootfs has it when not in /usr/bin (ggml-rpc-server's libexec).
  std::filesystem::path rootfs_binary;
};

struct EngineLocation {
  EngineSource source = EngineSource::kSystem;
  std::filesystem::path binary;  // inside the rootfs for kRootfs ("/usr/bin/llama-server")
  std::filesystem::path rootfs;  // empty unless kRootfs
  // bubblewrap, found on PATH (kRootfs falls back to "bwrap" by name); for
  // the others empty when it is not installed, and the engine then runs
  // without a sandbox.
  std::filesystem::path bwrap;
  std::vector<std::string> environment;  // from LocateOptions: all the engine sees
  // Sandboxed on the host: all of /etc, or only what dynamic linking needs
  // (SandboxSpec::whole_etc).
  bool whole_etc = true;

  // The environment to spawn the engine with: `environment` (or, when that
  // is empty, EngineEnvironment's fixed part), then `extra` over it.
  std::vector<std::string> Environment(const std::vector<std::string>& extra = {}) const;

  bool sandboxed() const { return source == EngineSource::kRootfs || !bwrap.empty(); }
  // How the engine is isolated, in words, for logs and `zest system`.
  std::string SandboxNote() const;

  // The argv that runs `args` (args[0] is ignored and replaced by the
  // binary): wrapped in bwrap (sandbox.h) with `mounts` when sandboxed(),
  // over the rootfs's system files for kRootfs and the host's otherwise.
  // Paths to bind must exist; a bind below /usr or /etc fails.
  // `own_network` false: it shares the network namespace it is started in
  // (inside another sandbox that has its own, behind the engine bridge).
  std::vector<std::string> Command(const std::vector<std::string>& args,
                                   const SandboxMounts& mounts, bool own_network = true) const;
};

// kNotFound with a message telling the user to run `make engines` when no
// source has a usable `binary_name`.
Result<EngineLocation> LocateEngine(const LocateOptions& options);

// FastFlowLM's `flm` (the NPU engine: `flm serve TAG`): the configured
// path, else the one on `path_env`. kNotFound when neither has it;
// kInvalidArgument when the configured one is not an executable file.
Result<std::filesystem::path> LocateFlm(const std::filesystem::path& configured,
                                        std::string_view path_env);

}  // namespace zest::engines
