// Small string helpers shared across modules (ASCII only: used for names,
// labels and protocol tokens, never for user text).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace zest {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace zest
