#include "cli/table.h"

#include <algorithm>
#include <cstdio>

namespace zest::cli {

void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    std::printf("%s\n", line.c_str());
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes == 0) return "-";
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::string HumanCount(uint64_t count) {
  if (count == 0) return "-";
  const char* units[] = {"", "K", "M", "B", "T"};
  double v = static_cast<double>(count);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 && u > 0 ? "%.1f%s" : "%.0f%s", v, units[u]);
  return buf;
}

std::string HumanDuration(double seconds) {
  auto s = static_cast<long>(seconds);
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%lds", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%ldm%lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ldh%ldm", s / 3600, (s % 3600) / 60);
  }
  return buf;
}

}  // namespace zest::cli
