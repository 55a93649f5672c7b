// System memory from /proc/meminfo.
#pragma once

#include <string>

#include "hardware/inventory.h"

namespace zest::hardware {

// Parses meminfo text ("MemTotal:  16384 kB"); fields absent stay 0, and
// MemAvailable falls back to MemFree + Cached on kernels before 3.14.
MemoryInfo ParseMemInfo(const std::string& meminfo);
MemoryInfo DiscoverMemory(const SystemRoots& roots);

}  // namespace zest::hardware
