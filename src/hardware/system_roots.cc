#include "hardware/system_roots.h"

#include <fstream>
#include <sstream>

namespace zest::hardware {
namespace fs = std::filesystem;

SystemRoots SystemRoots::Under(const fs::path& dir) {
  SystemRoots roots;
  roots.sysfs = dir / "sys";
  roots.procfs = dir / "proc";
  roots.devfs = dir / "dev";
  return roots;
}

bool SystemRoots::IsLive() const { return sysfs == "/sys" && procfs == "/proc"; }

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return out.str();
}

std::string Trim(const std::string& text) {
  constexpr char kSpace[] = " \t\r\n";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(kSpace);
  return text.substr(begin, end - begin + 1);
}

std::optional<std::string> ReadLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return Trim(line);
}

std::optional<uint64_t> ParseNumber(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty()) return std::nullopt;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16;
  char* end = nullptr;
  unsigned long long value = std::strtoull(t.c_str(), &end, base);
  if (end == t.c_str() || *end != '\0') return std::nullopt;
  return value;
}

std::optional<uint64_t> ReadNumber(const fs::path& path) {
  auto line = ReadLine(path);
  if (!line) return std::nullopt;
  return ParseNumber(*line);
}

std::string LinkName(const fs::path& link) {
  std::error_code ec;
  fs::path target = fs::read_symlink(link, ec);
  if (ec) return "";
  return target.filename().string();
}

}  // namespace zest::hardware
