#include "config/secure_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace zest::config {
namespace fs = std::filesystem;

namespace {

std::string Octal(unsigned mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", mode & 07777);
  return text;
}

std::string Errno(const std::string& what, const fs::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

Status WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError(std::string("write failed: ") + std::strerror(errno));
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomically(const fs::path& path, std::string_view content, unsigned mode) {
  fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return IoError(Errno("cannot create a temporary file beside", path));
  // mkstemp makes 0600; set the wanted mode before any byte is written.
  Status st = ::fchmod(fd, mode) == 0 ? WriteAll(fd, content) : IoError(Errno("chmod", tmp));
  if (st.ok() && ::fsync(fd) != 0) st = IoError(Errno("fsync", tmp));
  if (::close(fd) != 0 && st.ok()) st = IoError(Errno("close", tmp));
  if (st.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) st = IoError(Errno("rename onto", path));
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  // The rename itself is durable only once the directory entry is on disk.
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::Ok();
}

Status CheckFilePermissions(const fs::path& path, unsigned forbidden, std::string_view why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return IoError(Errno("cannot stat", path));
  }
  unsigned mode = st.st_mode & 07777;
  if ((mode & forbidden) == 0) return Status::Ok();
  return InvalidArgument(path.string() + " has mode " + Octal(mode) + " but " + std::string(why) +
                         "; run: chmod " + Octal(mode & ~forbidden) + " " + path.string());
}

Status CheckNotWorldWritable(const fs::path& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return IoError(Errno("cannot stat", path));
  if ((st.st_mode & S_IWOTH) == 0) return Status::Ok();
  return InvalidArgument(
      std::string(what) + " " + path.string() + " is world-writable (mode " + Octal(st.st_mode) +
      "): any local user could replace it; refusing to use it (chmod o-w " + path.string() + ")");
}

}  // namespace zest::config
