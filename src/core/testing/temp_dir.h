// A fresh temporary directory for one test (test-only), removed on
// destruction. Unit tests take their scratch space from here: ctest runs
// test binaries side by side and a fixture may run many times in one process,
// so a name fixed per process (temp dir + pid) can be shared or left over;
// mkdtemp gives each TempDir a directory nobody else has.
#pragma once

#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace zest::testing {

class TempDir {
 public:
  // Makes <temp_directory_path>/zest-<prefix>-XXXXXX (mode 0700). Throws
  // std::runtime_error when it cannot: a test must not go on with no directory.
  explicit TempDir(const std::string& prefix = "test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("zest-" + prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      const int error = errno;
      throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(error));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // best effort: a leftover temp dir is not a test failure
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The directory; it exists until this TempDir is destroyed.
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace zest::testing
