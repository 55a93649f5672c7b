// Executable lookup shared by the engine locator and Process::Spawn: the one
// place that decides what "on PATH" means for zest. Pure filesystem reads;
// thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace zest::engines {

// A regular file (after following links) that this process may execute.
bool IsExecutableFile(const std::filesystem::path& path);

// The first executable `name` in the colon-separated `path_env`. Empty
// entries are skipped rather than meaning "." as in POSIX: a server must not
// pick up binaries from whatever directory it happens to run in.
std::optional<std::filesystem::path> FindOnPath(std::string_view path_env, std::string_view name);

}  // namespace zest::engines
