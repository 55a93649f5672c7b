// SystemRoots: where discovery reads the kernel's view of the machine. Every
// file under /sys, /proc and /dev is read through these roots, so tests (and
// `ZEST_SYSFS_ROOT=... zest serve`, config's hardware.*_root) can point
// discovery at a fixture tree that
// describes hardware this machine lacks. The read helpers here are plain,
// blocking file reads of small text files; safe from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace zest::hardware {

struct SystemRoots {
  std::filesystem::path sysfs = "/sys";
  std::filesystem::path procfs = "/proc";
  std::filesystem::path devfs = "/dev";

  // A fixture tree laid out as <dir>/sys, <dir>/proc, <dir>/dev.
  static SystemRoots Under(const std::filesystem::path& dir);

  // True when these are the real /sys and /proc. Only then may discovery ask
  // live libraries (cpuid, NVML, Vulkan): their answers describe this
  // machine, and mixing them into a fixture's inventory would be wrong.
  bool IsLive() const;

  std::filesystem::path Sys(const std::string& relative) const { return sysfs / relative; }
  std::filesystem::path Proc(const std::string& relative) const { return procfs / relative; }
  std::filesystem::path Dev(const std::string& relative) const { return devfs / relative; }
};

// The whole file, or nullopt when it cannot be read (absent attributes are
// normal in sysfs: drivers expose different sets).
std::optional<std::string> ReadFile(const std::filesystem::path& path);
// The file's first line without surrounding whitespace.
std::optional<std::string> ReadLine(const std::filesystem::path& path);
// A decimal or 0x-prefixed hex number, as sysfs writes them.
std::optional<uint64_t> ReadNumber(const std::filesystem::path& path);
// The last path component of a symlink's target ("amdgpu" for
// device/driver -> ../../../bus/pci/drivers/amdgpu), or "" when absent.
std::string LinkName(const std::filesystem::path& link);
// "0x1002" or "4098" → 4098; nullopt when not a number.
std::optional<uint64_t> ParseNumber(const std::string& text);
std::string Trim(const std::string& text);

}  // namespace zest::hardware
