#include "engines/engine_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string_view>

#include "engines/path_search.h"

namespace zest::engines {
namespace {

constexpr const char* kBinaryName = "llama-server";
constexpr const char* kRootfsBinary = "/usr/bin/llama-server";
constexpr const char* kFallbackPath = "/usr/local/bin:/usr/bin:/bin";

std::string EnvOr(const char* name, std::string fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : std::move(fallback);
}

// bwrap from the PATH being searched, else the process's own PATH, else the
// usual system directories: a test that narrows the PATH for llama-server
// still needs the real bwrap.
std::optional<std::filesystem::path> FindBwrap(const std::string& path_env) {
  if (auto found = FindOnPath(path_env, "bwrap")) return found;
  if (auto found = FindOnPath(EnvOr("PATH", ""), "bwrap")) return found;
  return FindOnPath(kFallbackPath, "bwrap");
}

Result<EngineLocation> LocateInRootfs(const std::filesystem::path& rootfs,
                                      const std::string& path_env) {
  if (!IsExecutableFile(rootfs / "usr/bin" / kBinaryName)) {
    return NotFound("no llama-server found (not configured, not on PATH, no engine rootfs at " +
                    rootfs.string() + "): run `make engines` (scripts/provision-engines.sh)");
  }
  auto bwrap = FindBwrap(path_env);
  if (!bwrap) {
    return NotFound("the engine rootfs " + rootfs.string() +
                    " needs bubblewrap, which is not on PATH: run `make deps`");
  }
  EngineLocation location;
  location.source = EngineSource::kRootfs;
  location.binary = kRootfsBinary;
  location.rootfs = rootfs;
  location.bwrap = *bwrap;
  return location;
}

// The fixed part of the sandbox. The rootfs is merged-/usr, so /usr and /etc
// (read-only) plus the four compatibility links are all the engine needs; the
// root itself is bwrap's tmpfs, so nothing the engine does outlives it except
// writes to the directories bound on purpose.
void AppendSandbox(const std::filesystem::path& rootfs, std::vector<std::string>& argv) {
  // One bwrap option per line.
  // clang-format off
  argv.insert(argv.end(), {
      "--die-with-parent", "--unshare-pid",
      "--ro-bind", (rootfs / "usr").string(), "/usr",
      "--symlink", "usr/lib", "/lib",
      "--symlink", "usr/lib64", "/lib64",
      "--symlink", "usr/bin", "/bin",
      "--symlink", "usr/sbin", "/sbin",
      "--ro-bind", (rootfs / "etc").string(), "/etc",
      "--dev", "/dev",
      "--proc", "/proc",
      "--tmpfs", "/tmp",
      "--ro-bind-try", "/sys", "/sys",
      "--dev-bind-try", "/dev/dri", "/dev/dri",
      "--dev-bind-try", "/dev/kfd", "/dev/kfd",
  });
  // clang-format on
}

}  // namespace

const char* EngineSourceName(EngineSource source) {
  switch (source) {
    case EngineSource::kConfigured:
      return "configured";
    case EngineSource::kSystem:
      return "system";
    case EngineSource::kRootfs:
      return "rootfs";
  }
  return "unknown";
}

std::filesystem::path DefaultRootfs() {
  std::string override_root = EnvOr("ZEST_ENGINE_ROOTFS", "");
  if (!override_root.empty()) return override_root;
  if (geteuid() == 0) return "/var/cache/zest/engines/debian-sid";
  std::filesystem::path cache = EnvOr("XDG_CACHE_HOME", "");
  if (cache.empty()) cache = std::filesystem::path(EnvOr("HOME", "/")) / ".cache";
  return cache / "zest/engines/debian-sid";
}

std::vector<std::string> EngineLocation::Command(
    const std::vector<std::string>& args, const std::vector<std::filesystem::path>& bind_rw,
    const std::vector<std::filesystem::path>& bind_ro) const {
  std::vector<std::string> argv;
  if (source == EngineSource::kRootfs) {
    argv.push_back(bwrap.empty() ? std::string("bwrap") : bwrap.string());
    AppendSandbox(rootfs, argv);
    // After --tmpfs /tmp so that directories under /tmp are bound over it.
    for (const auto& dir : bind_rw) argv.insert(argv.end(), {"--bind", dir.string(), dir.string()});
    for (const auto& dir : bind_ro)
      argv.insert(argv.end(), {"--ro-bind", dir.string(), dir.string()});
    // "--" so an engine argument can never be read as a bwrap option.
    argv.push_back("--");
  }
  argv.push_back(binary.string());
  if (!args.empty()) argv.insert(argv.end(), args.begin() + 1, args.end());
  return argv;
}

Result<EngineLocation> LocateLlamaServer(const LocateOptions& options) {
  if (!options.configured.empty()) {
    if (!IsExecutableFile(options.configured)) {
      return InvalidArgument("configured llama-server " + options.configured.string() +
                             " does not exist or is not an executable file");
    }
    EngineLocation location;
    location.source = EngineSource::kConfigured;
    location.binary = options.configured;
    return location;
  }
  if (auto found = FindOnPath(options.path_env, kBinaryName)) {
    EngineLocation location;
    location.source = EngineSource::kSystem;
    location.binary = *found;
    return location;
  }
  return LocateInRootfs(options.rootfs.empty() ? DefaultRootfs() : options.rootfs,
                        options.path_env);
}

Result<std::filesystem::path> LocateFlm(const std::filesystem::path& configured,
                                        std::string_view path_env) {
  if (!configured.empty()) {
    if (!IsExecutableFile(configured)) {
      return InvalidArgument("configured flm " + configured.string() +
                             " does not exist or is not an executable file");
    }
    return configured;
  }
  if (auto found = FindOnPath(path_env, "flm")) return *found;
  return NotFound(
      "FastFlowLM (flm) is not installed: see https://github.com/FastFlowLM/FastFlowLM");
}

}  // namespace zest::engines
