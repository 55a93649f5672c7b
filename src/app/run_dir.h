// RunDir: the per-run directory of engine sockets (one engine-N/ per
// engine), fresh and 0700 for each server run, so only zest's user can
// connect, no stale socket of a crashed run is in the way, and the path
// stays short (UNIX socket paths are limited to 108 bytes). It is removed,
// with everything in it, when the RunDir is destroyed.
#pragma once

#include <filesystem>
#include <memory>

#include "core/result.h"

namespace zest::app {

class RunDir {
 public:
  // A new zest-XXXXXX under `base` (server.runtime_dir: XDG_RUNTIME_DIR, or
  // /tmp when that is not a directory).
  static Result<std::unique_ptr<RunDir>> Create(const std::filesystem::path& base);
  ~RunDir();
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit RunDir(std::filesystem::path path) : path_(std::move(path)) {}
  const std::filesystem::path path_;
};

}  // namespace zest::app
