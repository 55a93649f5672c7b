#include "engines/path_search.h"

#include <sys/stat.h>
#include <unistd.h>

namespace zest::engines {

// access() rather than mode bits so root, ACLs and noexec mounts are judged
// the way execve will judge them.
bool IsExecutableFile(const std::filesystem::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  return access(path.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> FindOnPath(std::string_view path_env, std::string_view name) {
  while (!path_env.empty()) {
    auto colon = path_env.find(':');
    std::string_view dir = path_env.substr(0, colon);
    path_env.remove_prefix(colon == std::string_view::npos ? path_env.size() : colon + 1);
    if (dir.empty()) continue;
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (IsExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace zest::engines
