// HttpGet: one blocking HTTP GET with libcurl, the building block of the hub
// client and the downloader. Follows redirects (the Hub sends downloads to a
// CDN host; libcurl then drops the Authorization header, as it should for a
// different host), honours libcurl's proxy environment variables, streams
// the body to a sink, gives up on a stalled connection, and stops when the
// caller cancels. Callable from any thread; never from Asio I/O threads.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zest::models {

struct HttpGetOptions {
  std::vector<std::string> headers;    // "Name: value"
  std::optional<uint64_t> range_from;  // sends "Range: bytes=from-[to]"
  std::optional<uint64_t> range_to;    // inclusive
  int connect_timeout_s = 30;
  int stall_timeout_s = 30;  // no bytes for this long: a timeout error
  const std::atomic<bool>* cancel = nullptr;
  // false: a redirect is the answer (its status and headers), not followed.
  bool follow_redirects = true;
  // Receives body bytes of 2xx answers with the answer's status (200 or
  // 206); other answers' bodies are kept in `error_body`. Returning false
  // stops the transfer (then `stopped_by_sink` is set).
  std::function<bool(long status, std::string_view bytes)> sink;
  // Set: called with each address libcurl is about to connect to (after its
  // own name lookup, so the address checked is the one used: a name cannot
  // change between the check and the connect); false refuses it, and with no
  // address left the transfer fails to connect. Proxies are then not used,
  // so that the address checked is the server's, not a proxy's.
  std::function<bool(const sockaddr* address)> allow_connect;
};

struct HttpGetResult {
  bool transport_ok = false;  // an HTTP answer was read to its end (or the sink stopped it)
  bool timed_out = false;     // connect timeout or stall
  bool cancelled = false;
  bool stopped_by_sink = false;
  std::string transport_error;                 // libcurl's message when !transport_ok
  long status = 0;                             // of the final response after redirects
  std::map<std::string, std::string> headers;  // of the final response, names lower-case
  std::string error_body;                      // first bytes of a non-2xx body
  uint64_t body_bytes = 0;                     // bytes handed to the sink
};

HttpGetResult HttpGet(const std::string& url, const HttpGetOptions& options);

// Percent-encodes one URL path segment (keeps unreserved characters).
std::string EscapePathSegment(std::string_view segment);

}  // namespace zest::models
