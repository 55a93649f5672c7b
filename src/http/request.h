// Request: one parsed HTTP request as handlers see it. Plain data, no Beast
// types, so api/ code never depends on the HTTP library.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/api_keys.h"

namespace zest::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive lookup; empty when absent.
std::string_view FindHeader(const Headers& headers, std::string_view name);

// %XX escapes decoded (malformed ones kept as they are); '+' is a space in a
// query string (`plus_is_space`), itself in a path.
std::string PercentDecode(std::string_view text, bool plus_is_space);

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/v1/models?x=1"
  std::string path;    // target without the query: "/v1/models"
  std::string query;   // after '?', undecoded; empty when none
  Headers headers;
  std::string body;
  std::string remote_address;       // peer IP
  std::vector<std::string> params;  // captures of {name} segments, in order
  std::string principal;            // the API key's name; "" without auth
  std::string default_priority;     // the key's priority; "" = none
  // An inference-scoped key sent it: its priority is a ceiling and its
  // keep_alive is capped (admin keys, and servers without keys, are not).
  bool inference_key = false;
  // The server asks for keys; `access` is what this request's key may do:
  // kAdmin without keys, kPublic on a public route without a valid key.
  bool keys_required = false;
  Access access = Access::kAdmin;
  std::string id;  // X-Request-Id (the client's, validated, or generated)

  std::string_view Header(std::string_view name) const { return FindHeader(headers, name); }
};

}  // namespace zest::http
