#include "engines/sandbox.h"

#include <algorithm>
#include <cstdlib>

namespace zest::engines {
namespace fs = std::filesystem;
namespace {

void Add(std::vector<std::string>& argv, std::initializer_list<std::string> items) {
  argv.insert(argv.end(), items);
}

// The provisioned rootfs is merged-/usr: /usr and /etc (read-only) plus the
// four compatibility links are all an engine needs from it.
void AddRootfs(const fs::path& rootfs, std::vector<std::string>& argv) {
  Add(argv, {"--ro-bind", (rootfs / "usr").string(), "/usr", "--symlink", "usr/lib", "/lib",
             "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--symlink",
             "usr/sbin", "/sbin", "--ro-bind", (rootfs / "etc").string(), "/etc"});
}

// The host's system directories, read-only; the top-level links of a
// merged-/usr system stay links. Of /etc, all or what the dynamic linker
// needs (Debian's alternatives link libraries such as libblas there).
void AddHostSystem(bool whole_etc, std::vector<std::string>& argv) {
  Add(argv, {"--ro-bind", "/usr", "/usr", "--ro-bind-try", "/opt", "/opt"});
  if (whole_etc) {
    Add(argv, {"--ro-bind-try", "/etc", "/etc"});
  } else {
    Add(argv, {"--ro-bind-try", "/etc/alternatives", "/etc/alternatives", "--ro-bind-try",
               "/etc/ld.so.cache", "/etc/ld.so.cache"});
  }
  for (const char* dir : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    if (fs::is_symlink(dir, ec)) {
      Add(argv, {"--symlink", fs::read_symlink(dir, ec).string(), dir});
    } else {
      Add(argv, {"--ro-bind-try", dir, dir});
    }
  }
}

bool Under(const fs::path& path, const fs::path& dir) {
  fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

// GPU device nodes (AMD, Intel and Vulkan through DRM and KFD; NVIDIA's
// own nodes), each only where present.
void AddDevices(std::vector<std::string>& argv) {
  Add(argv, {"--dev-bind-try", "/dev/dri", "/dev/dri", "--dev-bind-try", "/dev/kfd", "/dev/kfd"});
  for (std::string node : {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"}) {
    Add(argv, {"--dev-bind-try", "/dev/" + node, "/dev/" + node});
  }
  for (int i = 0; i < 8; ++i) {
    std::string node = "/dev/nvidia" + std::to_string(i);
    Add(argv, {"--dev-bind-try", node, node});
  }
}

// Namespaces and session, the same whatever a sandbox sees of the files:
// what keeps it from seeing or signalling zest's processes, its terminal,
// its host name and cgroups, and from outliving zest.
void AddIsolation(const SandboxSpec& spec, std::vector<std::string>& argv) {
  // One bwrap option (and its values) per line.
  // clang-format off
  Add(argv, {
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--new-session",
  });
  // clang-format on
  if (spec.own_network) argv.push_back("--unshare-net");
  if (spec.drop_capabilities) {
    Add(argv, {"--cap-drop", "ALL"});
    for (const std::string& cap : spec.keep_capabilities) Add(argv, {"--cap-add", cap});
  }
}

void AddView(const SandboxSpec& spec, std::vector<std::string>& argv) {
  switch (spec.view) {
    case SandboxView::kSystemFiles:
      if (spec.rootfs.empty()) {
        AddHostSystem(spec.whole_etc, argv);
      } else {
        AddRootfs(spec.rootfs, argv);
      }
      Add(argv,
          {"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind-try", "/sys", "/sys"});
      AddDevices(argv);
      return;
    case SandboxView::kHostWritable:
      Add(argv, {"--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc"});
      return;
  }
}

// `path` is `dir` or lies below it, compared as written and as resolved
// (a hidden directory may be named through a link).
bool IsOrUnder(const fs::path& path, const fs::path& dir) {
  if (dir.empty()) return false;
  fs::path p = path.lexically_normal(), d = dir.lexically_normal();
  if (p == d || Under(p, d)) return true;
  std::error_code ec;
  fs::path rp = fs::weakly_canonical(path, ec);
  if (ec) return false;
  fs::path rd = fs::weakly_canonical(dir, ec);
  return !ec && (rp == rd || Under(rp, rd));
}

// Whether a bind of `tree` would show any of `secrets` (it is one of them
// or holds one).
bool Shows(const fs::path& tree, const std::vector<fs::path>& secrets) {
  return std::any_of(secrets.begin(), secrets.end(),
                     [&tree](const fs::path& s) { return IsOrUnder(s, tree); });
}

struct Bind {
  const char* option;
  std::string source;
  std::string target;
};

void AddBinds(const std::vector<Bind>& binds, bool holding_hidden,
              const std::vector<fs::path>& hidden, std::vector<std::string>& argv) {
  for (const Bind& b : binds) {
    if (Shows(b.target, hidden) == holding_hidden) Add(argv, {b.option, b.source, b.target});
  }
}

}  // namespace

std::vector<std::string> SandboxCommand(const SandboxSpec& spec) {
  std::vector<std::string> argv = {spec.bwrap.empty() ? std::string("bwrap") : spec.bwrap.string()};
  AddIsolation(spec, argv);
  AddView(spec, argv);
  const SandboxMounts& mounts = spec.mounts;
  std::vector<Bind> binds;
  if (spec.view == SandboxView::kSystemFiles && spec.rootfs.empty() && !spec.binary.empty()) {
    std::vector<fs::path> secrets = mounts.hidden;
    if (!spec.user_home.empty()) secrets.push_back(spec.user_home);
    for (const fs::path& dir : OwnBinaryBinds(spec.binary, secrets))
      binds.push_back({"--ro-bind", dir.string(), dir.string()});
  }
  for (const fs::path& dir : mounts.writable)
    binds.push_back({"--bind", dir.string(), dir.string()});
  for (const fs::path& path : mounts.readonly) {
    std::error_code ec;
    fs::path source = fs::canonical(path, ec);
    binds.push_back({"--ro-bind", (ec ? path : source).string(), path.string()});
  }
  // bwrap mounts in order, a later mount over an earlier one. A hidden
  // directory's tmpfs comes after every bind that holds it (the view's
  // system directories, and any of the caller's that does), so nothing of
  // it shows through; the binds below it (an engine's socket and slot
  // directories, its model files) come after the tmpfs so that they show.
  AddBinds(binds, true, mounts.hidden, argv);
  for (const fs::path& dir : mounts.hidden) Add(argv, {"--tmpfs", dir.string()});
  AddBinds(binds, false, mounts.hidden, argv);
  // "--" so an argument of the command can never be read as a bwrap option.
  argv.push_back("--");
  return argv;
}

std::vector<fs::path> OwnBinaryBinds(const fs::path& binary, const std::vector<fs::path>& secrets) {
  std::error_code ec;
  fs::path real = fs::canonical(binary, ec);
  if (ec) return {};
  for (const char* system : {"/usr", "/opt", "/bin", "/sbin", "/lib", "/lib64"}) {
    if (Under(real, system)) return {};
  }
  const fs::path dir = real.parent_path();
  // A binary straight in $HOME (or in zest's home, or in /): the file alone.
  if (dir.empty() || dir == "/" || Shows(dir, secrets)) return {real};
  std::vector<fs::path> binds = {dir};
  // An install prefix's libraries (~/.local/bin and ~/.local/lib), never
  // the prefix itself: ~/.local holds ~/.local/share/zest, ~/bin's parent
  // is $HOME.
  const fs::path prefix = dir.parent_path();
  for (const char* libs : {"lib", "lib64"}) {
    fs::path lib = prefix / libs;
    if (prefix.empty() || prefix == "/" || lib == dir) continue;
    if (fs::is_directory(lib, ec) && !Shows(lib, secrets)) binds.push_back(fs::canonical(lib, ec));
  }
  return binds;
}

fs::path UserHome() {
  const char* home = std::getenv("HOME");
  return home != nullptr && *home != '\0' ? fs::path(home) : fs::path();
}

const std::vector<std::string>& PassedEnvironment() {
  static const std::vector<std::string> kPassed = {
      "GGML_VK_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",     "HIP_VISIBLE_DEVICES",
      "ROCR_VISIBLE_DEVICES",    "HSA_OVERRIDE_GFX_VERSION", "VK_ICD_FILENAMES",
      "VK_DRIVER_FILES",         "MESA_VK_DEVICE_SELECT",
  };
  return kPassed;
}

std::vector<std::string> EngineEnvironment(const GetEnv& getenv,
                                           const std::vector<std::string>& extra) {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"};
  for (const std::string& name : PassedEnvironment()) {
    if (auto value = getenv(name)) env.push_back(name + "=" + *value);
  }
  for (const std::string& kv : extra) {
    std::string key = kv.substr(0, kv.find('='));
    std::erase_if(env, [&key](const std::string& e) { return e.substr(0, e.find('=')) == key; });
    env.push_back(kv);
  }
  return env;
}

}  // namespace zest::engines
