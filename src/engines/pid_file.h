// Engine pid files: a record, on disk, of every engine zest has running, so
// a zest that was killed before it could stop its engines (SIGKILL, OOM,
// power-cut of the parent but not the child) lets the next `zest serve`
// find and stop what is left.
//
// One file per engine, `<dir>/<pid>.json`: the engine's pid, its start time
// in clock ticks since boot (/proc/PID/stat field 22; with the pid it names
// one process for the machine's uptime, so a reused pid is never mistaken
// for our engine), its argv (compared with /proc/PID/cmdline), and the same
// pid + start time for the zest that started it (an engine whose zest still
// runs belongs to that zest and is left alone). Written 0600 with fsync +
// rename by Process::Spawn and removed when Process reaps the child.
//
// Thread-safe (no shared state); ReapStaleEngines blocks for up to `grace`
// per engine it has to kill, so call it at start-up, before serving.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.h"

namespace zest::engines {

struct PidRecord {
  pid_t pid = 0;
  uint64_t start_ticks = 0;
  std::vector<std::string> argv;
  pid_t owner_pid = 0;  // the zest that started it
  uint64_t owner_start_ticks = 0;
};

// Field 22 of /proc/PID/stat (clock ticks after boot). kNotFound when there
// is no such process, or it is a zombie (it runs nothing any more).
Result<uint64_t> ProcessStartTicks(pid_t pid);
// The argv of a live process (/proc/PID/cmdline split at NULs).
Result<std::vector<std::string>> ProcessCommandLine(pid_t pid);

// A record for `pid` (a child that has just exec'd `argv`) owned by this
// process.
Result<PidRecord> RecordFor(pid_t pid, const std::vector<std::string>& argv);

std::filesystem::path PidFilePath(const std::filesystem::path& dir, pid_t pid);
// Creates `dir` (0700) if needed and writes the record atomically, 0600.
Status WritePidFile(const std::filesystem::path& dir, const PidRecord& record);
Result<PidRecord> ReadPidFile(const std::filesystem::path& file);

// What happened to one pid file at start-up.
struct ReapedEngine {
  std::filesystem::path file;
  PidRecord record;  // pid 0 when the file could not be read
  enum class Outcome {
    kKilled,      // still running as our engine: terminated, file removed
    kKillFailed,  // still running after SIGKILL (file kept for the next start)
    kGone,        // no such process any more: file removed
    kReused,      // the pid now names another process (start time or argv differ): file removed
    kOwnerAlive,  // its zest still runs: left alone
    kUnreadable,  // not a pid file we can parse: removed
  } outcome = Outcome::kGone;
  bool forced = false;  // kKilled: needed SIGKILL after `grace`
};
const char* OutcomeName(ReapedEngine::Outcome outcome);

// Goes through every `*.json` in `dir` (a missing dir is no error): engines
// left by a zest that is no longer running are stopped (SIGTERM to their
// process group, SIGKILL after `grace`) and their files removed; files of
// processes that are gone or were replaced are removed.
std::vector<ReapedEngine> ReapStaleEngines(const std::filesystem::path& dir,
                                           std::chrono::milliseconds grace);

}  // namespace zest::engines
