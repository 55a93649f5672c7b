#include "http/request_id.h"

#include <cstdint>
#include <random>

namespace zest::http {

bool IsValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string RequestIdFor(std::string_view client_id) {
  if (IsValidRequestId(client_id)) return std::string(client_id);
  // Per thread, seeded once: ids only need to be unique, not secret.
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t bits = rng();
  std::string id(16, '0');
  for (char& c : id) {
    c = kHex[bits & 0xf];
    bits >>= 4;
  }
  return id;
}

}  // namespace zest::http
