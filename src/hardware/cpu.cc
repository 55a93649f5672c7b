#include "hardware/cpu.h"

#include <sys/utsname.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ZEST_HAVE_CPUID 1
#endif

namespace zest::hardware {
namespace fs = std::filesystem;

namespace {

// "model name\t: AMD Ryzen" → {"model name", "AMD Ryzen"}.
std::pair<std::string, std::string> SplitField(const std::string& line) {
  size_t colon = line.find(':');
  if (colon == std::string::npos) return {Trim(line), ""};
  return {Trim(line.substr(0, colon)), Trim(line.substr(colon + 1))};
}

std::vector<std::string> TrackedFlags(const std::string& flags_line) {
  std::set<std::string> present;
  std::istringstream words(flags_line);
  for (std::string w; words >> w;) present.insert(w == "asimd" ? "neon" : w);
  std::vector<std::string> out;
  for (const auto& f : TrackedCpuFeatures()) {
    if (present.count(f)) out.push_back(f);
  }
  return out;
}

std::string MachineArchitecture() {
  struct utsname u {};
  if (::uname(&u) != 0) return "";
  return u.machine;
}

}  // namespace

const std::vector<std::string>& TrackedCpuFeatures() {
  static const std::vector<std::string> kFeatures = {
      "avx",         "avx2",     "fma",      "f16c",     "avx512f",  "avx512bw", "avx512_vnni",
      "avx512_bf16", "avx_vnni", "amx_tile", "amx_int8", "amx_bf16", "neon",     "sve"};
  return kFeatures;
}

CpuInfo ParseCpuInfo(const std::string& cpuinfo) {
  CpuInfo cpu;
  std::set<std::string> packages;
  int cores_per_package = 0;
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);) {
    auto [key, value] = SplitField(line);
    if (key == "processor")
      ++cpu.threads;
    else if (key == "vendor_id" && cpu.vendor.empty())
      cpu.vendor = value;
    else if ((key == "model name" || key == "Model") && cpu.model_name.empty())
      cpu.model_name = value;
    else if (key == "physical id")
      packages.insert(value);
    else if (key == "cpu cores")
      cores_per_package = std::atoi(value.c_str());
    else if ((key == "flags" || key == "Features") && cpu.features.empty()) {
      cpu.features = TrackedFlags(value);
    }
  }
  cpu.sockets = packages.empty() ? 1 : static_cast<int>(packages.size());
  cpu.physical_cores = cores_per_package > 0 ? cores_per_package * cpu.sockets : cpu.threads;
  cpu.features_source = "cpuinfo";
  return cpu;
}

#ifdef ZEST_HAVE_CPUID
namespace {

struct CpuidRegs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs Cpuid(unsigned leaf, unsigned subleaf) {
  CpuidRegs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool Bit(unsigned reg, int bit) { return (reg >> bit) & 1U; }

// XCR0: which register states the OS saves. AVX needs YMM (bits 1, 2),
// AVX-512 opmask and ZMM (5, 6, 7), AMX tile config and data (17, 18); the
// kernel hides a feature whose state it does not enable, and so do we.
uint64_t Xcr0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

}  // namespace

bool CpuidAvailable() { return true; }

std::vector<std::string> CpuidFeatures() {
  std::set<std::string> found;
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  CpuidRegs l1 = Cpuid(1, 0);
  uint64_t xcr0 = Bit(l1.ecx, 27) ? Xcr0() : 0;  // OSXSAVE
  bool os_avx = (xcr0 & 0x6) == 0x6;
  bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  bool os_amx = (xcr0 & 0x60000) == 0x60000;
  if (os_avx && Bit(l1.ecx, 28)) found.insert("avx");
  if (os_avx && Bit(l1.ecx, 12)) found.insert("fma");
  if (os_avx && Bit(l1.ecx, 29)) found.insert("f16c");
  if (max_leaf >= 7) {
    CpuidRegs l7 = Cpuid(7, 0);
    CpuidRegs l7s1 = Cpuid(7, 1);
    if (os_avx && Bit(l7.ebx, 5)) found.insert("avx2");
    if (os_avx512 && Bit(l7.ebx, 16)) found.insert("avx512f");
    if (os_avx512 && Bit(l7.ebx, 30)) found.insert("avx512bw");
    if (os_avx512 && Bit(l7.ecx, 11)) found.insert("avx512_vnni");
    if (os_avx512 && Bit(l7s1.eax, 5)) found.insert("avx512_bf16");
    if (os_avx && Bit(l7s1.eax, 4)) found.insert("avx_vnni");
    if (os_amx && Bit(l7.edx, 24)) found.insert("amx_tile");
    if (os_amx && Bit(l7.edx, 25)) found.insert("amx_int8");
    if (os_amx && Bit(l7.edx, 22)) found.insert("amx_bf16");
  }
  std::vector<std::string> out;
  for (const auto& f : TrackedCpuFeatures()) {
    if (found.count(f)) out.push_back(f);
  }
  return out;
}
#else
bool CpuidAvailable() { return false; }
std::vector<std::string> CpuidFeatures() { return {}; }
#endif

namespace {

// Physical cores as unique (package, core) pairs over the online CPUs'
// topology; 0 when sysfs has no topology (containers sometimes hide it).
int TopologyCores(const SystemRoots& roots, int* sockets) {
  std::set<std::pair<uint64_t, uint64_t>> cores;
  std::set<uint64_t> packages;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(roots.Sys("devices/system/cpu"), ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.rfind("cpu", 0) != 0 || !std::isdigit(name[3])) continue;
    auto core = ReadNumber(entry.path() / "topology/core_id");
    auto package = ReadNumber(entry.path() / "topology/physical_package_id");
    if (!core || !package) continue;
    cores.insert({*package, *core});
    packages.insert(*package);
  }
  if (!packages.empty()) *sockets = static_cast<int>(packages.size());
  return static_cast<int>(cores.size());
}

}  // namespace

CpuInfo DiscoverCpu(const SystemRoots& roots, bool use_cpuid) {
  CpuInfo cpu = ParseCpuInfo(ReadFile(roots.Proc("cpuinfo")).value_or(""));
  int sockets = cpu.sockets;
  if (int cores = TopologyCores(roots, &sockets); cores > 0) {
    cpu.physical_cores = cores;
    cpu.sockets = sockets;
  }
  cpu.architecture = ReadLine(roots.Proc("sys/kernel/arch")).value_or("");
  if (cpu.architecture.empty() && roots.IsLive()) cpu.architecture = MachineArchitecture();
  if (use_cpuid && CpuidAvailable()) {
    cpu.features = CpuidFeatures();
    cpu.features_source = "cpuid";
  }
  return cpu;
}

}  // namespace zest::hardware
