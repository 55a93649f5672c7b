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

namespace zest::engines {

enum class EngineSource { kConfigured, kSystem, kRootfs };
const char* EngineSourceName(EngineSource source);  // "configured", "system", "rootfs"

struct LocateOptions {
  std::filesystem::path configured;  // from config/ZEST_LLAMA_SERVER; empty = none
  std::string path_env;              // the PATH to search; empty = skip
  std::filesystem::path rootfs;      // rootfs dir; empty = the default location
};

// The default rootfs: $ZEST_ENGINE_ROOTFS when set, else
// /var/cache/zest/engines/debian-sid as root, else $XDG_CACHE_HOME (or
// ~/.cache)/zest/engines/debian-sid. Matches scripts/provision-engines.sh.
std::filesystem::path DefaultRootfs();

struct EngineLocation {
  EngineSource source = EngineSource::kSystem;
  std::filesystem::path binary;  // inside the rootfs for kRootfs ("/usr/bin/llama-server")
  std::filesystem::path rootfs;  // empty unless kRootfs
  std::filesystem::path bwrap;   // kRootfs: bubblewrap found on PATH; empty = "bwrap"

  // The argv that runs `args` (args[0] is ignored and replaced by the
  // binary). For kRootfs it is wrapped in bwrap: a tmpfs root with the
  // rootfs's /usr and /etc bound read-only (plus the merged-/usr symlinks),
  // a fresh /dev and /proc, a private /tmp, /sys and /dev/dri (/dev/kfd) when
  // present, --unshare-pid --die-with-parent, and each of `bind_rw` and
  // `bind_ro` bound at the same path inside. The environment passes through
  // unchanged. Paths to bind must exist; a bind below /usr or /etc fails.
  std::vector<std::string> Command(const std::vector<std::string>& args,
                                   const std::vector<std::filesystem::path>& bind_rw,
                                   const std::vector<std::filesystem::path>& bind_ro) const;
};

// kNotFound with a message telling the user to run `make engines` when no
// source has a usable llama-server.
Result<EngineLocation> LocateLlamaServer(const LocateOptions& options);

// FastFlowLM's `flm` (the NPU engine: `flm serve TAG`): the configured
// path, else the one on `path_env`. kNotFound when neither has it;
// kInvalidArgument when the configured one is not an executable file.
Result<std::filesystem::path> LocateFlm(const std::filesystem::path& configured,
                                        std::string_view path_env);

}  // namespace zest::engines
