#include "api/session_key.h"

#include <openssl/evp.h>

namespace zest::api {

std::string_view ClientSession(const http::Request& request, std::string_view body_session) {
  std::string_view header = request.Header(kSessionHeader);
  return header.empty() ? body_session : header;
}

namespace {

// 32 hex digits of SHA-256 over `input`.
std::string Digest(std::string_view input) {
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

// What a message adds to the opening: each field with its length before it,
// so no two openings run together into one.
void AddMessage(const engines::Message& m, std::string& out) {
  const auto add = [&out](std::string_view field) {
    out += std::to_string(field.size());
    out += ':';
    out += field;
  };
  add(m.role);
  add(m.text);
  for (const engines::ContentPart& part : m.parts) {
    add(part.type == engines::ContentPart::Type::kImage ? part.url : part.text);
  }
}

}  // namespace

std::string OpeningSession(const engines::ChatRequest& chat) {
  std::string opening;
  if (chat.kind == engines::Capability::kChat) {
    for (const engines::Message& m : chat.messages) {
      AddMessage(m, opening);
      if (m.role == "user") break;
    }
  } else if (chat.kind == engines::Capability::kCompletions && chat.prompt.is_string()) {
    opening = chat.prompt.get_ref<const std::string&>().substr(0, 4096);
  }
  if (opening.size() < kOpeningSessionMinBytes) return "";
  return "opening:" + Digest(opening);
}

std::string ScopedSessionKey(std::string_view principal, std::string_view session) {
  if (session.empty()) return "";
  // The principal's length first: ("ab", "c") and ("a", "bc") stay apart.
  return Digest(std::to_string(principal.size()) + ":" + std::string(principal) + ":" +
                std::string(session));
}

}  // namespace zest::api
