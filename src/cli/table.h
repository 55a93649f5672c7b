// Aligned plain-text tables for CLI output (like `docker ps`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zest::cli {

void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows);

// 1536 → "1.5 KB"; 0 → "-".
std::string HumanBytes(uint64_t bytes);
// 494032768 → "494M"; 0 → "-".
std::string HumanCount(uint64_t count);
// 3725 → "1h2m"; 42 → "42s".
std::string HumanDuration(double seconds);

}  // namespace zest::cli
