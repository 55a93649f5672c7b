// The sandbox every engine runs in: bubblewrap with namespaces of its own
// (network, pid, IPC, UTS, cgroup), a new session, no capabilities, a
// private /tmp, and only what it needs from the filesystem: the system
// files it runs on (read-only; a provisioned rootfs's, else the host's), its
// model files (read-only), and its own run and slot directories. Its only
// door is its UNIX socket, in its own directory; in a network namespace of
// its own it cannot reach zest's port or anything else on the network.
// The environment is an allow-list too (EngineEnvironment), so the engine
// never sees zest's secrets.
//
// SandboxCommand is the one place a bubblewrap command line is built. Two
// other sandboxes use it: the outer one of a TCP-only engine
// (bridged_command.h: the same view, one capability kept for the bwrap it
// starts) and FastFlowLM's (flm_command.h: the host's files and devices);
// what differs between the three is data (SandboxSpec), not code.
// Pure: builds argument lists, starts nothing.
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
  // Directories hidden under an empty tmpfs (zest's home, where the host's
  // system directories would otherwise show it): after every bind that
  // holds one, before those below it.
  std::vector<std::filesystem::path> hidden;
};

// $HOME, or empty when unset.
std::filesystem::path UserHome();

// How much of the host's filesystem a sandbox shows.
enum class SandboxView {
  // System files only (`rootfs`'s /usr and /etc, else the host's /usr,
  // /etc, /opt), read-only; a private /tmp, /sys read-only, the GPU device
  // nodes, and the engine binary's own directory when it lies outside
  // those. Every engine's sandbox.
  kSystemFiles,
  // All of it read-write, with the host's /dev: FastFlowLM, which keeps its
  // models and settings under $HOME and needs /dev/accel.
  kHostWritable,
};

struct SandboxSpec {
  std::filesystem::path bwrap;  // empty: "bwrap", found on PATH
  SandboxView view = SandboxView::kSystemFiles;
  std::filesystem::path rootfs;  // kSystemFiles: empty = the host's system files
  std::filesystem::path binary;  // kSystemFiles on the host: the engine's binary
  // kSystemFiles on the host: the user's home, which the binary's binds
  // never show (nor `mounts.hidden`); by default $HOME.
  std::filesystem::path user_home = UserHome();
  // kSystemFiles on the host: all of /etc, or (false) only what dynamic
  // linking needs there (/etc/alternatives, /etc/ld.so.cache), for a tool
  // that reads no configuration (ffmpeg).
  bool whole_etc = true;
  // False: no network namespace of its own (it is inside one already).
  bool own_network = true;
  // As root, a sandboxed process keeps root's capabilities (mounts, raw
  // sockets, ptrace) unless they are dropped; as any other user bwrap
  // already drops them. Set when bwrap runs as root, except where what runs
  // inside needs them (see its caller).
  bool drop_capabilities = false;
  // With drop_capabilities: the ones that stay ("CAP_SYS_ADMIN"), for a
  // sandbox whose process starts another bwrap (bridged_command.h).
  std::vector<std::string> keep_capabilities;
  SandboxMounts mounts;
};

// bwrap, its options, and "--" (the command to run inside follows): new
// pid, IPC, UTS and cgroup namespaces, a new session and --die-with-parent
// always; then the view, then the binds that hold a hidden directory, the
// hidden directories' tmpfs, and the other binds (the binary's, writable,
// then read-only), so that nothing of a hidden directory shows but what is
// bound below it.
std::vector<std::string> SandboxCommand(const SandboxSpec& spec);

using GetEnv = std::function<std::optional<std::string>(const std::string&)>;

// The whole environment an engine gets ("K=V"): a fixed PATH, HOME in its
// private /tmp, a UTF-8 locale, and from zest's own environment only the
// variables that choose devices and drivers (GGML_VK_VISIBLE_DEVICES,
// CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES,
// HSA_OVERRIDE_GFX_VERSION, VK_ICD_FILENAMES, VK_DRIVER_FILES,
// MESA_VK_DEVICE_SELECT), then `extra`.
std::vector<std::string> EngineEnvironment(const GetEnv& getenv,
                                           const std::vector<std::string>& extra);

// What a kSystemFiles sandbox on the host binds read-only for a binary
// outside the system directories (a build tree, a release unpacked in
// $HOME, ~/.local/bin): its own directory, and the install prefix's lib/
// and lib64/ beside it where they exist; never a directory that is or holds
// one of `secrets` ($HOME, zest's home): the binary file alone when its
// directory does. Empty for a binary under /usr, /opt, /bin, /lib... or one
// that does not exist. A build whose libraries lie elsewhere (above its
// bin/) does not start this way: install it, or use the provisioned rootfs.
std::vector<std::filesystem::path> OwnBinaryBinds(
    const std::filesystem::path& binary, const std::vector<std::filesystem::path>& secrets);

// The variables EngineEnvironment passes on from zest's environment.
const std::vector<std::string>& PassedEnvironment();

}  // namespace zest::engines
