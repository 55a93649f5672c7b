// The sandbox every engine runs in: bubblewrap with namespaces of its own
// (network, pid, IPC, UTS, cgroup), a new session, no capabilities, a
// private /tmp, and only what it needs from the filesystem: the system
// files it runs on (read-only; a provisioned rootfs's, else the host's), its
// model files (read-only), and its own run and slot directories. Its only
// door is its UNIX socket, in its own directory; in a network namespace of
// its own it cannot reach zest's port or anything else on the network.
// The environment is an allow-list too (EngineEnvironment), so the engine
// never sees zest's secrets. Pure: builds argument lists, starts nothing.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zest::engines {

struct SandboxMounts {
  // Directories bound read-write at their own path.
  std::vector<std::filesystem::path> writable;
  // Files or directories bound read-only at their own path; a path that is
  // a symlink gets its target's contents there (so a Hugging Face snapshot
  // link shows the blob, and nothing else of the store).
  std::vector<std::filesystem::path> readonly;
  // Directories hidden under an empty tmpfs before the binds (zest's home,
  // where the host's system directories would otherwise show it).
  std::vector<std::filesystem::path> hidden;
};

struct SandboxBase {
  std::filesystem::path rootfs;  // empty: the host's /usr, /etc, /opt (read-only)
  std::filesystem::path binary;  // the engine, bound read-only when outside those
  bool as_root = false;          // bwrap runs as root: drop every capability
  // False: no network namespace of its own (it is inside one already).
  bool own_network = true;
};

// bwrap's options, up to and including "--" (the engine's argv follows).
std::vector<std::string> SandboxArgs(const SandboxBase& base, const SandboxMounts& mounts);

using GetEnv = std::function<std::optional<std::string>(const std::string&)>;

// The whole environment an engine gets ("K=V"): a fixed PATH, HOME in its
// private /tmp, a UTF-8 locale, and from zest's own environment only the
// variables that choose devices and drivers (GGML_VK_VISIBLE_DEVICES,
// CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
// HSA_OVERRIDE_GFX_VERSION, VK_ICD_FILENAMES, VK_DRIVER_FILES,
// MESA_VK_DEVICE_SELECT), then `extra`.
std::vector<std::string> EngineEnvironment(const GetEnv& getenv,
                                           const std::vector<std::string>& extra);

// The variables EngineEnvironment passes on from zest's environment.
const std::vector<std::string>& PassedEnvironment();

}  // namespace zest::engines
