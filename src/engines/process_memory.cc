#include "engines/process_memory.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace zest::engines {
namespace {

// VmRSS (kB → bytes) and PPid from /proc/PID/status; false when unreadable.
bool ReadStatus(const std::filesystem::path& file, uint64_t& rss, pid_t& parent) {
  std::ifstream in(file);
  if (!in) return false;
  rss = 0;
  parent = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PPid:", 0) == 0) parent = static_cast<pid_t>(std::atol(line.c_str() + 5));
    if (line.rfind("VmRSS:", 0) == 0) rss = std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return true;
}

}  // namespace

uint64_t ProcessTreeRssBytes(pid_t pid, const std::filesystem::path& proc_root) {
  std::map<pid_t, std::vector<pid_t>> children;
  std::map<pid_t, uint64_t> rss;
  DIR* dir = opendir(proc_root.c_str());
  if (dir == nullptr) return 0;
  while (dirent* entry = readdir(dir)) {
    const pid_t p = static_cast<pid_t>(std::atol(entry->d_name));
    if (p <= 0) continue;
    uint64_t bytes = 0;
    pid_t parent = 0;
    if (!ReadStatus(proc_root / entry->d_name / "status", bytes, parent)) continue;
    rss[p] = bytes;
    children[parent].push_back(p);
  }
  closedir(dir);
  if (!rss.count(pid)) return 0;
  uint64_t total = 0;
  std::vector<pid_t> todo = {pid};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    total += rss[p];
    for (pid_t child : children[p]) todo.push_back(child);
  }
  return total;
}

}  // namespace zest::engines
