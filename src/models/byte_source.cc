#include "models/byte_source.h"

#include <cerrno>
#include <cstring>

namespace zest::models {
namespace {

constexpr size_t kFileBufferBytes = 1 << 20;

Status Truncated(uint64_t position, uint64_t wanted, uint64_t remaining) {
  return InvalidArgument("truncated GGUF: need " + std::to_string(wanted) + " bytes at offset " +
                         std::to_string(position) + ", " + std::to_string(remaining) + " remain");
}

}  // namespace

Status MemorySource::Read(void* dst, uint64_t n) {
  if (n > Remaining()) return Truncated(position_, n, Remaining());
  if (n > 0) std::memcpy(dst, bytes_.data() + position_, n);
  position_ += n;
  return Status::Ok();
}

Status MemorySource::Skip(uint64_t n) {
  if (n > Remaining()) return Truncated(position_, n, Remaining());
  position_ += n;
  return Status::Ok();
}

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::filesystem::path& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return NotFound("cannot stat " + path.string() + ": " + ec.message());
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return NotFound("cannot open " + path.string() + ": " + std::strerror(errno));
  }
  return std::unique_ptr<FileSource>(new FileSource(file, size, path.string()));
}

FileSource::FileSource(std::FILE* file, uint64_t size, std::string name)
    : file_(file), size_(size), name_(std::move(name)), buffer_(kFileBufferBytes) {
  std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
}

FileSource::~FileSource() { std::fclose(file_); }

Status FileSource::Read(void* dst, uint64_t n) {
  if (n > Remaining()) return Truncated(position_, n, Remaining());
  if (n > 0 && std::fread(dst, 1, n, file_) != n) {
    // The file shrank after we sized it, or the disk failed.
    return IoError("short read from " + name_ + " at offset " + std::to_string(position_));
  }
  position_ += n;
  return Status::Ok();
}

Status FileSource::Skip(uint64_t n) {
  if (n > Remaining()) return Truncated(position_, n, Remaining());
  // Remaining() bounds n by the file size, which fits in off_t.
  if (::fseeko(file_, static_cast<off_t>(position_ + n), SEEK_SET) != 0) {
    return IoError("seek failed in " + name_ + ": " + std::strerror(errno));
  }
  position_ += n;
  return Status::Ok();
}

}  // namespace zest::models
