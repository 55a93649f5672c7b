#include "hardware/memory.h"

#include <map>
#include <sstream>

namespace zest::hardware {

MemoryInfo ParseMemInfo(const std::string& meminfo) {
  std::map<std::string, uint64_t> kb;
  std::istringstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream value(line.substr(colon + 1));
    uint64_t n = 0;
    if (value >> n) kb[line.substr(0, colon)] = n;
  }
  auto bytes = [&kb](const char* key) { return kb.count(key) ? kb[key] * 1024 : 0; };
  MemoryInfo m;
  m.total_bytes = bytes("MemTotal");
  m.available_bytes =
      kb.count("MemAvailable") ? bytes("MemAvailable") : bytes("MemFree") + bytes("Cached");
  m.swap_total_bytes = bytes("SwapTotal");
  m.swap_free_bytes = bytes("SwapFree");
  return m;
}

MemoryInfo DiscoverMemory(const SystemRoots& roots) {
  return ParseMemInfo(ReadFile(roots.Proc("meminfo")).value_or(""));
}

}  // namespace zest::hardware
