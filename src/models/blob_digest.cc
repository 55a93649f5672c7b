#include "models/blob_digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace zest::models {
namespace {

namespace fs = std::filesystem;

struct FileState {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

std::optional<FileState> StateOf(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  return FileState{static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

}  // namespace

Result<std::string> FileSha256(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("cannot read " + file.string() + ": " + std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    ::close(fd);
    return Internal("cannot start a sha256");
  }
  std::vector<char> buffer(1 << 20);
  ssize_t n = 0;
  for (;;) {
    n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n));
  }
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) return IoError("cannot read " + file.string() + ": " + std::strerror(read_errno));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::optional<Status> BlobDigests::Known(const fs::path& file, const std::string& sha256) {
  const std::optional<FileState> state = StateOf(file);
  if (!state) return std::nullopt;
  MutexLock lock(mu_);
  auto it = verdicts_.find(file.string());
  if (it == verdicts_.end() || it->second.size != state->size ||
      it->second.mtime_ns != state->mtime_ns || it->second.expected != sha256) {
    return std::nullopt;
  }
  return it->second.status;
}

Status BlobDigests::Verify(const fs::path& file, const std::string& sha256) {
  if (std::optional<Status> known = Known(file, sha256)) return *known;
  // Stat before hashing: a file that changes while it is hashed keeps the
  // older state, so the next look hashes it again.
  const std::optional<FileState> state = StateOf(file);
  if (!state) return IoError("cannot read " + file.string() + ": " + std::strerror(errno));
  // Hashed outside the lock: other models' checks need not wait for this one.
  Result<std::string> actual = FileSha256(file);
  if (!actual.ok()) return actual.status();
  Status status = Status::Ok();
  if (*actual != sha256) {
    status =
        Internal(file.string() + " does not match its digest: the store names sha256:" + sha256 +
                 ", the file's bytes are sha256:" + *actual +
                 " (changed or damaged after it was written; fetch it again with the tool "
                 "that wrote it)");
  }
  MutexLock lock(mu_);
  verdicts_[file.string()] = {state->size, state->mtime_ns, sha256, status};
  return status;
}

}  // namespace zest::models
