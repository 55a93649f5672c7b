// CPU discovery: model and vendor from /proc/cpuinfo, cores and threads from
// /sys/devices/system/cpu topology, ISA features from cpuid (live x86) or the
// cpuinfo flags line (fixtures, other architectures).
#pragma once

#include <string>
#include <vector>

#include "hardware/inventory.h"

namespace zest::hardware {

// The features zest reports, by kernel flag name, in report order.
const std::vector<std::string>& TrackedCpuFeatures();

// Parses /proc/cpuinfo text: vendor, model name, threads (processor entries),
// sockets and cores when topology is missing, and the tracked features that
// the flags (x86) or Features (arm64: asimd → "neon") line lists.
CpuInfo ParseCpuInfo(const std::string& cpuinfo);

// The tracked features cpuid reports on this CPU, with the OS-support checks
// (XCR0) the kernel applies; empty on non-x86 builds.
std::vector<std::string> CpuidFeatures();
bool CpuidAvailable();

// ParseCpuInfo plus sysfs topology (unique package/core pairs) and, when
// `use_cpuid`, cpuid features instead of the flags line.
CpuInfo DiscoverCpu(const SystemRoots& roots, bool use_cpuid);

}  // namespace zest::hardware
