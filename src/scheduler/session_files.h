// The session tier's files on disk (session_tier.h): one
// `session-<key>.bin` per conversation, a slot the engine saved, in the
// model's slot directory (slot_dirs.h). They are kept after a restore (a
// conversation that is not served again until the next unload still has
// its file) and least recently used go first when they pass a size budget
// across every model; `zest rm` removes a model's directory with them.
// The directories are the engines' own (a sandboxed engine writes them),
// so only regular files are counted or removed, never through a link.
// Plain functions over the file system; any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace zest::scheduler {

// "session-<key>.bin"; "" when `session` is not a key of hex digits (the
// scoped keys are, so a file name can carry nothing else).
std::string SessionFileName(std::string_view session);

struct SessionFile {
  std::filesystem::path path;
  uint64_t bytes = 0;
  std::filesystem::file_time_type used;  // its mtime: written, or last restored
};

// The session files in `dir` (regular files with a session file's name).
std::vector<SessionFile> ListSessionFiles(const std::filesystem::path& dir);

// Those of `files` to remove so that the rest come to `budget_bytes` or
// less: any larger than the budget alone, then the least recently used.
std::vector<std::filesystem::path> OverBudget(std::vector<SessionFile> files,
                                              uint64_t budget_bytes);

// Applies the budget over every model's directory under `root` (the
// slot directory); returns how many files it removed.
int TrimSessionFiles(const std::filesystem::path& root, uint64_t budget_bytes);

// The total size of the session files in `dir`, and how many there are.
struct SessionFilesUse {
  uint64_t bytes = 0;
  int files = 0;
};
SessionFilesUse SessionFilesIn(const std::filesystem::path& dir);

}  // namespace zest::scheduler
