// The host of an http(s) URL or web origin, as the CORS policy and the
// image fetcher read it: one parser, so the two never disagree on what a
// URL names.
#pragma once

#include <string>
#include <string_view>

namespace zest::http {

// "http(s)://host[:port][/...]" → the host, lower-cased, IPv6 without its
// brackets ("localhost", "127.0.0.1", "::1"). Empty for any other scheme, an
// empty authority, or one with user info or a space ("http://a@b" could
// name either host). `authority`, when given, receives "host[:port]" as
// written, and `rest` what follows it (the path, query or fragment).
std::string UrlHost(std::string_view url, std::string_view* authority = nullptr,
                    std::string_view* rest = nullptr);

}  // namespace zest::http
