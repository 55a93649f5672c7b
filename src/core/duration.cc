#include "core/duration.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace zest {
namespace {

using std::chrono::milliseconds;

Status BadDuration(std::string_view what, std::string_view text) {
  return InvalidArgument(std::string(what) + " '" + std::string(text) +
                         "' is not a duration: use e.g. \"10m\", \"1h30m\", \"45s\", \"500ms\", a "
                         "number of seconds, or -1 for forever");
}

// Milliseconds per unit (Go duration units, as Ollama clients send them).
std::optional<double> UnitMs(std::string_view unit) {
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  if (unit == "m") return 60e3;
  if (unit == "h") return 3600e3;
  return std::nullopt;
}

}  // namespace

Result<Duration> ParseDuration(std::string_view text, std::string_view what) {
  if (text.empty() || text.size() > 32) return BadDuration(what, text);
  bool negative = text.front() == '-';
  std::string_view rest = negative ? text.substr(1) : text;
  if (rest.empty()) return BadDuration(what, text);
  double total_ms = 0;
  std::size_t i = 0;
  while (i < rest.size()) {
    std::size_t start = i;
    while (i < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[i])) || rest[i] == '.'))
      ++i;
    if (i == start) return BadDuration(what, text);
    std::string number(rest.substr(start, i - start));
    char* end = nullptr;
    double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value))
      return BadDuration(what, text);
    std::size_t unit_start = i;
    while (i < rest.size() && std::isalpha(static_cast<unsigned char>(rest[i]))) ++i;
    std::string_view unit = rest.substr(unit_start, i - unit_start);
    if (unit.empty()) {  // a bare number is seconds, and only alone
      if (unit_start != rest.size() || start != 0) return BadDuration(what, text);
      total_ms = value * 1e3;
      break;
    }
    auto per_unit = UnitMs(unit);
    if (!per_unit) return BadDuration(what, text);
    total_ms += value * *per_unit;
  }
  // Any negative value, and anything beyond a year, is forever.
  if ((negative && total_ms > 0) || total_ms > 365.0 * 24 * 3600e3) return Duration(std::nullopt);
  return Duration(milliseconds(static_cast<int64_t>(std::llround(total_ms))));
}

std::string FormatDuration(const Duration& duration) {
  if (!duration) return "forever";
  int64_t ms = duration->count();
  if (ms % 1000 != 0) return std::to_string(ms) + "ms";
  int64_t s = ms / 1000;
  std::string out;
  if (s >= 3600) out += std::to_string(s / 3600) + "h";
  if (s >= 60) out += std::to_string(s / 60 % 60) + "m";
  out += std::to_string(s % 60) + "s";
  return out;
}

}  // namespace zest
