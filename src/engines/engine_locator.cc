#include "engines/engine_locator.h"

#include <unistd.h>

#include <optional>
#include <string_view>

#include "engines/path_search.h"

namespace zest::engines {
namespace {

constexpr const char* kFallbackPath = "/usr/local/bin:/usr/bin:/bin";

// bwrap from the PATH being searched (zest's own, as the settings' side
// reads it: app/engine_search.cc), else the usual system directories: a
// PATH narrowed for the engines (tests do) still finds the real bwrap.
// Nothing here reads the environment itself (config is its one reader).
std::optional<std::filesystem::path> FindBwrap(const std::string& path_env) {
  if (auto found = FindOnPath(path_env, "bwrap")) return found;
  return FindOnPath(kFallbackPath, "bwrap");
}

Result<EngineLocation> LocateInRootfs(const std::filesystem::path& rootfs,
                                      const std::string& path_env, const std::string& name,
                                      std::filesystem::path inside) {
  if (inside.empty()) inside = "/usr/bin/" + name;
  if (!IsExecutableFile(rootfs / inside.relative_path())) {
    return NotFound("no " + name +
                    " found (not configured, not on PATH, not in the engine rootfs at " +
                    rootfs.string() + "): run `make engines` (scripts/provision-engines.sh)");
  }
  auto bwrap = FindBwrap(path_env);
  if (!bwrap) {
    return NotFound("the engine rootfs " + rootfs.string() +
                    " needs bubblewrap, which is not on PATH: run `make deps`");
  }
  EngineLocation location;
  location.source = EngineSource::kRootfs;
  location.binary = inside;
  location.rootfs = rootfs;
  location.bwrap = *bwrap;
  return location;
}

}  // namespace

Result<EngineLocation> LocateBinary(const LocateOptions& options);

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

std::string EngineLocation::SandboxNote() const {
  if (sandboxed()) {
    return std::string("bubblewrap: own network, pid and IPC namespaces; ") +
           (source == EngineSource::kRootfs ? "the rootfs's" : "the host's") +
           " system files read-only; only its model files, run and slot directories";
  }
  return "none: bubblewrap is not installed (apt install bubblewrap), so the engine runs "
         "with zest's own access to files and the network";
}

std::vector<std::string> EngineLocation::Environment(const std::vector<std::string>& extra) const {
  std::vector<std::string> over = environment;
  over.insert(over.end(), extra.begin(), extra.end());
  return EngineEnvironment([](const std::string&) { return std::nullopt; }, over);
}

std::vector<std::string> EngineLocation::Command(const std::vector<std::string>& args,
                                                 const SandboxMounts& mounts,
                                                 bool own_network) const {
  std::vector<std::string> argv;
  if (sandboxed()) {
    argv = SandboxCommand({.bwrap = bwrap,
                           .view = SandboxView::kSystemFiles,
                           .rootfs = rootfs,
                           .binary = binary,
                           .whole_etc = whole_etc,
                           .own_network = own_network,
                           .drop_capabilities = geteuid() == 0,
                           .keep_capabilities = {},
                           .mounts = mounts});
  }
  argv.push_back(binary.string());
  if (!args.empty()) argv.insert(argv.end(), args.begin() + 1, args.end());
  return argv;
}

Result<EngineLocation> LocateEngine(const LocateOptions& options) {
  Result<EngineLocation> found = LocateBinary(options);
  if (found.ok()) found->environment = options.environment;
  return found;
}

Result<EngineLocation> LocateBinary(const LocateOptions& options) {
  if (!options.configured.empty()) {
    if (!IsExecutableFile(options.configured)) {
      return InvalidArgument("configured " + options.binary_name + " " +
                             options.configured.string() +
                             " does not exist or is not an executable file");
    }
    EngineLocation location;
    location.source = EngineSource::kConfigured;
    location.binary = options.configured;
    location.bwrap = FindBwrap(options.path_env).value_or(std::filesystem::path());
    return location;
  }
  if (auto found = FindOnPath(options.path_env, options.binary_name)) {
    EngineLocation location;
    location.source = EngineSource::kSystem;
    location.binary = *found;
    location.bwrap = FindBwrap(options.path_env).value_or(std::filesystem::path());
    return location;
  }
  if (options.rootfs.empty()) {
    return NotFound("no " + options.binary_name +
                    " found (not configured, not on PATH, no engine rootfs): run "
                    "`make engines` (scripts/provision-engines.sh)");
  }
  return LocateInRootfs(options.rootfs, options.path_env, options.binary_name,
                        options.rootfs_binary);
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
