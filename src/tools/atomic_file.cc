#include "tools/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace zest::tools {
namespace {

Status ErrnoStatus(const std::string& what, const std::filesystem::path& path) {
  return IoError(what + " " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

Result<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::filesystem::path& path) {
  if (path.filename().empty()) return InvalidArgument("no file name in " + path.string());
  std::string pattern = path.string() + ".tmp.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  // mkstemp creates the file 0600 and O_EXCL, so two writers never share it.
  const int fd = mkstemp(buffer.data());
  if (fd < 0) return ErrnoStatus("cannot create a temporary file beside", path);
  return std::unique_ptr<AtomicFile>(new AtomicFile(fd, path, buffer.data()));
}

AtomicFile::AtomicFile(int fd, std::filesystem::path target, std::filesystem::path temp)
    : fd_(fd), target_(std::move(target)), temp_path_(std::move(temp)) {}

AtomicFile::~AtomicFile() {
  if (!committed_) Abandon();
}

void AtomicFile::Abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
}

Status AtomicFile::Append(std::string_view bytes) {
  if (fd_ < 0) return Internal("append to a closed file " + temp_path_.string());
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus("cannot write", temp_path_);
    bytes.remove_prefix(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status AtomicFile::Skip(uint64_t bytes) {
  if (fd_ < 0) return Internal("skip in a closed file " + temp_path_.string());
  if (::lseek(fd_, static_cast<off_t>(bytes), SEEK_CUR) < 0) {
    return ErrnoStatus("cannot seek in", temp_path_);
  }
  size_ += bytes;
  return Status::Ok();
}

Status AtomicFile::Commit() {
  if (fd_ < 0) return Internal("commit of a closed file " + temp_path_.string());
  // A trailing Skip() moved the offset but wrote nothing: extend the file to
  // it (as a hole).
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    return ErrnoStatus("cannot set the size of", temp_path_);
  }
  // Data must be on disk before the rename makes it visible, or a crash
  // could leave a complete-looking but empty file under the target name.
  if (::fsync(fd_) != 0) return ErrnoStatus("cannot fsync", temp_path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return ErrnoStatus("cannot close", temp_path_);
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    return ErrnoStatus("cannot rename into place", target_);
  }
  committed_ = true;
  // Make the rename itself durable; failure here leaves a correct file, so
  // it is not reported.
  std::filesystem::path dir = target_.parent_path();
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::Ok();
}

}  // namespace zest::tools
