// Files that hold secrets (API keys, TLS keys) or decide what zest trusts
// (config.toml): written atomically so a crash never leaves half a file, and
// checked so another local user cannot read or change them. Thread-safe
// (plain functions over the filesystem).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"

namespace zest::config {

// Writes `content` to `path` with permissions `mode`: a temporary file in the
// same directory, fsync, rename over `path`, fsync of the directory. Either
// the old or the new content survives a crash, never a mix.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           unsigned mode);

// Refuses (kInvalidArgument, naming the file, its mode and the chmod that
// fixes it) a file whose group/other permission bits intersect `forbidden`
// (e.g. 0077: any access by others; 0022: writable by others). A missing
// file is Ok.
Status CheckFilePermissions(const std::filesystem::path& path, unsigned forbidden,
                            std::string_view why);

// Refuses a world-writable file or directory (anyone could swap its
// contents): kInvalidArgument naming the path. Follows symlinks.
Status CheckNotWorldWritable(const std::filesystem::path& path, std::string_view what);

}  // namespace zest::config
