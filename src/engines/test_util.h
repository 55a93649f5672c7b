// Helpers shared by the engines tests (test-only): TempDir (core/testing's,
// named here for the tests that already use it), small file writers, and a
// "has this pid gone" check that treats a zombie as gone (an orphan's zombie
// belongs to init, which may be slow to reap it, and it runs no code).
#pragma once

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/testing/temp_dir.h"

namespace zest::engines::testing {

using zest::testing::TempDir;

inline void WriteFile(const std::filesystem::path& path, const std::string& text, mode_t mode) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
}

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline bool ProcessGone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  auto close_paren = stat.rfind(')');
  return close_paren == std::string::npos || stat.substr(close_paren + 2, 1) == "Z";
}

inline bool WaitGone(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ProcessGone(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace zest::engines::testing
