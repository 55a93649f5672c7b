#include "engines/sandbox.h"

#include <algorithm>

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

}  // namespace

std::vector<std::string> SandboxCommand(const SandboxSpec& spec) {
  std::vector<std::string> argv = {spec.bwrap.empty() ? std::string("bwrap") : spec.bwrap.string()};
  AddIsolation(spec, argv);
  AddView(spec, argv);
  const SandboxMounts& mounts = spec.mounts;
  for (const fs::path& dir : mounts.hidden) Add(argv, {"--tmpfs", dir.string()});
  if (spec.view == SandboxView::kSystemFiles && spec.rootfs.empty() && !spec.binary.empty()) {
    if (auto tree = OwnBinaryTree(spec.binary))
      Add(argv, {"--ro-bind", tree->string(), tree->string()});
  }
  // After --tmpfs /tmp and the hidden directories, so that what lies below
  // them is bound over them.
  for (const fs::path& dir : mounts.writable) Add(argv, {"--bind", dir.string(), dir.string()});
  for (const fs::path& path : mounts.readonly) {
    std::error_code ec;
    fs::path source = fs::canonical(path, ec);
    Add(argv, {"--ro-bind", (ec ? path : source).string(), path.string()});
  }
  // "--" so an argument of the command can never be read as a bwrap option.
  argv.push_back("--");
  return argv;
}

std::optional<fs::path> OwnBinaryTree(const fs::path& binary) {
  std::error_code ec;
  fs::path real = fs::canonical(binary, ec);
  if (ec) return std::nullopt;
  for (const char* system : {"/usr", "/opt", "/bin", "/sbin", "/lib", "/lib64"}) {
    if (Under(real, system)) return std::nullopt;
  }
  fs::path dir = real.parent_path().parent_path();
  if (dir.empty() || dir == "/") dir = real.parent_path();
  return dir;
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
