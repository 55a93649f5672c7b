// Request ids: every request gets one, returned as X-Request-Id and put in
// every log line about it. A client's own X-Request-Id is kept when it is
// short and of a safe charset (so it cannot forge log lines or headers);
// otherwise zest makes one.
#pragma once

#include <string>
#include <string_view>

namespace zest::http {

inline constexpr std::size_t kMaxRequestIdLength = 64;

// True for 1..64 characters of [A-Za-z0-9._:-].
bool IsValidRequestId(std::string_view id);

// `client_id` when valid, else a fresh random id (16 hex digits from the
// kernel's random source, core/random_hex.h).
std::string RequestIdFor(std::string_view client_id);

}  // namespace zest::http
