#include "scheduler/slot_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace zest::scheduler {
namespace {

namespace fs = std::filesystem;

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Status Failed(const std::string& what, const fs::path& path) {
  return IoError("cannot move the slot file: " + what + " " + path.string() + ": " +
                 std::strerror(errno));
}

// The copy across file systems: read without following a link, write into
// a file that did not exist (O_EXCL), so a link put there fails the copy.
Status CopyInto(const fs::path& from, const fs::path& to) {
  Fd in(OpenEngineFile(from, O_RDONLY));
  if (in.get() < 0) return Failed("open", from);
  ::unlink(to.c_str());  // whatever was there, a link included (unlink does not follow)
  Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) return Failed("create", to);
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(in.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Failed("read", from);
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out.get(), buffer + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        Status failed = Failed("write", to);
        ::unlink(to.c_str());
        return failed;
      }
      done += w;
    }
  }
  return Status::Ok();
}

}  // namespace

int OpenEngineFile(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  const int status = ::fcntl(fd, F_GETFL);
  if (status >= 0) ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

Status MoveSlotFile(const fs::path& from_dir, const fs::path& to_dir, const std::string& name) {
  if (from_dir == to_dir) return Status::Ok();
  const fs::path from = from_dir / name;
  const fs::path to = to_dir / name;
  std::error_code ec;
  if (fs::symlink_status(from, ec).type() != fs::file_type::regular) {
    return Internal("the slot file " + from.string() + " is not a regular file");
  }
  // rename(2) replaces a link at `to` rather than following it.
  if (::rename(from.c_str(), to.c_str()) == 0) return Status::Ok();
  if (errno != EXDEV) return Failed("rename", from);
  Status copied = CopyInto(from, to);
  ::unlink(from.c_str());
  return copied;
}

}  // namespace zest::scheduler
