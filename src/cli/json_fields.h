// Reading fields of the server's JSON answers for display. A missing or
// mistyped field reads as empty or zero (an older or newer server may lack
// or add fields); nothing here throws.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace zest::cli {

// The string at `key`, or "" when it is missing or not a string.
inline std::string TextField(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The unsigned number at `key`, or 0.
inline uint64_t UintField(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// The number at `key`, or 0.
inline double NumberField(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

}  // namespace zest::cli
