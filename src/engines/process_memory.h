// Resident memory of an engine as the kernel counts it: the sum of VmRSS of
// a process and all its descendants (an engine under bubblewrap is a
// grandchild of the process zest holds). Reads /proc (or `proc_root`);
// blocking, about a millisecond per hundred processes. Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>

namespace zest::engines {

// 0 when `pid` is gone.
uint64_t ProcessTreeRssBytes(pid_t pid, const std::filesystem::path& proc_root = "/proc");

}  // namespace zest::engines
