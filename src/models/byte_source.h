// ByteSource: a sequential, bounds-checked byte stream over a file or a
// memory buffer. Every read is checked against the bytes that remain, so a
// parser built on it cannot read past the end or be tricked into allocating
// more than the source holds. Not thread-safe; one parser owns one source.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::models {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Total size of the source in bytes.
  virtual uint64_t Size() const = 0;
  // Bytes consumed so far.
  virtual uint64_t Position() const = 0;
  uint64_t Remaining() const { return Size() - Position(); }

  // Copies the next `n` bytes into `dst`; an error (and nothing consumed
  // reliably) when fewer than `n` remain.
  virtual Status Read(void* dst, uint64_t n) = 0;
  // Consumes `n` bytes without copying them.
  virtual Status Skip(uint64_t n) = 0;
};

// Reads `bytes`, which must outlive the source.
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t Size() const override { return bytes_.size(); }
  uint64_t Position() const override { return position_; }
  Status Read(void* dst, uint64_t n) override;
  Status Skip(uint64_t n) override;

 private:
  std::string_view bytes_;
  uint64_t position_ = 0;
};

// Reads a file through a buffered stdio stream (headers are read front to
// back; a large buffer keeps vocabularies of 100k+ strings cheap to read).
class FileSource : public ByteSource {
 public:
  static Result<std::unique_ptr<FileSource>> Open(const std::filesystem::path& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t Size() const override { return size_; }
  uint64_t Position() const override { return position_; }
  Status Read(void* dst, uint64_t n) override;
  Status Skip(uint64_t n) override;

 private:
  FileSource(std::FILE* file, uint64_t size, std::string name);

  std::FILE* file_;
  uint64_t size_;
  uint64_t position_ = 0;
  std::string name_;
  std::vector<char> buffer_;  // handed to setvbuf; lives as long as file_
};

}  // namespace zest::models
