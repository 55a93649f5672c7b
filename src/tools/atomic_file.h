// AtomicFile: writes a file under a temporary name beside its target and
// renames it into place on Commit(), so other processes see either the old
// file or the complete new one. Destroying an uncommitted AtomicFile (or a
// failed write) removes the temporary file. Not thread-safe.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "core/result.h"

namespace zest::tools {

class AtomicFile {
 public:
  // Creates "<path>.tmp.XXXXXX" (mode 0600) in the target's directory.
  static Result<std::unique_ptr<AtomicFile>> Create(const std::filesystem::path& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status Append(std::string_view bytes);
  // Advances `bytes` without writing, leaving a hole (zeros) in a sparse file.
  Status Skip(uint64_t bytes);
  // fsyncs the data, renames the file to the target, fsyncs the directory.
  Status Commit();

  const std::filesystem::path& temp_path() const { return temp_path_; }

 private:
  AtomicFile(int fd, std::filesystem::path target, std::filesystem::path temp);
  void Abandon();

  int fd_;
  std::filesystem::path target_;
  std::filesystem::path temp_path_;
  bool committed_ = false;
  uint64_t size_ = 0;  // bytes appended or skipped so far
};

}  // namespace zest::tools
