#include "http/request_id.h"

#include "core/random_hex.h"

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
  return RandomHex(8);
}

}  // namespace zest::http
