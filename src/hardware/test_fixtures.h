// Test helpers: the FAKE fixture trees under tests/fixtures/hardware, and
// writable copies of them for tests that change files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/testing/temp_dir.h"
#include "hardware/system_roots.h"

namespace zest::hardware {

inline std::filesystem::path FixtureDir(const std::string& name) {
  return std::filesystem::path(ZEST_HARDWARE_FIXTURES) / name;
}

inline SystemRoots FixtureRoots(const std::string& name) {
  return SystemRoots::Under(FixtureDir(name));
}

// A private copy of a fixture (symlinks kept as symlinks), removed on
// destruction.
class FixtureCopy {
 public:
  explicit FixtureCopy(const std::string& name) : dir_("hw") {
    std::filesystem::copy(
        FixtureDir(name), dir_.path(),
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  SystemRoots roots() const { return SystemRoots::Under(dir_.path()); }
  void Write(const std::string& relative, const std::string& text) const {
    std::ofstream(dir_.path() / relative, std::ios::trunc) << text;
  }

 private:
  zest::testing::TempDir dir_;
};

}  // namespace zest::hardware
