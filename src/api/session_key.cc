#include "api/session_key.h"

#include <openssl/evp.h>

namespace zest::api {

std::string_view ClientSession(const http::Request& request, std::string_view body_session) {
  std::string_view header = request.Header(kSessionHeader);
  return header.empty() ? body_session : header;
}

std::string ScopedSessionKey(std::string_view principal, std::string_view session) {
  if (session.empty()) return "";
  // The principal's length first: ("ab", "c") and ("a", "bc") stay apart.
  const std::string input =
      std::to_string(principal.size()) + ":" + std::string(principal) + ":" + std::string(session);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(input.data(), input.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned int i = 0; i < 16 && i < length; ++i) {
    key += kHex[digest[i] >> 4];
    key += kHex[digest[i] & 0xf];
  }
  return key;
}

}  // namespace zest::api
