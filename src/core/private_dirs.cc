#include "core/private_dirs.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace zest {

Status CreatePrivateDirectories(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return Status::Ok();
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    ZEST_RETURN_IF_ERROR(CreatePrivateDirectories(dir.parent_path()));
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return IoError("cannot create " + dir.string() + ": " + std::strerror(errno));
  }
  // mkdir's mode is masked by the umask; 0700 is never wider than asked.
  if (!std::filesystem::is_directory(dir, ec)) return IoError(dir.string() + " is not a directory");
  return Status::Ok();
}

}  // namespace zest
