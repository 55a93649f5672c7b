#include "models/http_fetch.h"

#include <algorithm>
#include <cctype>
#include <memory>

#include "models/curl_library.h"

namespace zest::models {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;
constexpr long kBufferBytes = 512 * 1024;

struct CurlDeleter {
  void operator()(CURL* c) const { curl::EasyCleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl::SlistFreeAll(l); }
};

struct TransferState {
  CURL* curl = nullptr;
  const HttpGetOptions* options = nullptr;
  HttpGetResult* result = nullptr;
};

std::string Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<TransferState*>(user);
  std::string_view line(data, size * n);
  // Each response of a redirect chain starts with a status line; only the
  // final response's headers matter.
  if (line.starts_with("HTTP/")) st->result->headers.clear();
  std::size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name = Trim(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    st->result->headers[name] = Trim(line.substr(colon + 1));
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<TransferState*>(user);
  long status = 0;
  curl::EasyGetinfo(st->curl, CURLINFO_RESPONSE_CODE, &status);
  std::string_view bytes(data, size * n);
  if (status < 200 || status >= 300) {
    std::size_t room = kMaxErrorBody - std::min(kMaxErrorBody, st->result->error_body.size());
    st->result->error_body.append(bytes.substr(0, room));
    return size * n;
  }
  if (st->options->sink && !st->options->sink(status, bytes)) {
    st->result->stopped_by_sink = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  st->result->body_bytes += bytes.size();
  return size * n;
}

curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* st = static_cast<TransferState*>(user);
  if (!st->options->allow_connect(&address->addr)) return CURL_SOCKET_BAD;
  // Close-on-exec, as libcurl's own: an engine started meanwhile must not inherit it.
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<TransferState*>(user);
  return st->options->cancel && st->options->cancel->load() ? 1 : 0;
}

void SetOptions(CURL* curl, const std::string& url, const HttpGetOptions& o, TransferState* st,
                curl_slist* headers, const std::string& range) {
  curl::EasySetopt(curl, CURLOPT_URL, url.c_str());
  curl::EasySetopt(curl, CURLOPT_FOLLOWLOCATION, o.follow_redirects ? 1L : 0L);
  curl::EasySetopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl::EasySetopt(curl, CURLOPT_HTTPHEADER, headers);
  curl::EasySetopt(curl, CURLOPT_USERAGENT, "zest/" ZEST_VERSION);
  curl::EasySetopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl::EasySetopt(curl, CURLOPT_HEADERDATA, st);
  curl::EasySetopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl::EasySetopt(curl, CURLOPT_WRITEDATA, st);
  curl::EasySetopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl::EasySetopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl::EasySetopt(curl, CURLOPT_XFERINFODATA, st);
  curl::EasySetopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl::EasySetopt(curl, CURLOPT_BUFFERSIZE, kBufferBytes);
  curl::EasySetopt(curl, CURLOPT_CONNECTTIMEOUT, static_cast<long>(o.connect_timeout_s));
  // Stall detection: under 1 byte/s for stall_timeout_s ends the transfer
  // with a timeout, which callers retry on a fresh connection.
  curl::EasySetopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl::EasySetopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o.stall_timeout_s));
  if (!range.empty()) curl::EasySetopt(curl, CURLOPT_RANGE, range.c_str());
  if (o.allow_connect) {
    curl::EasySetopt(curl, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
    curl::EasySetopt(curl, CURLOPT_OPENSOCKETDATA, st);
    curl::EasySetopt(curl, CURLOPT_PROXY, "");
  }
}

}  // namespace

HttpGetResult HttpGet(const std::string& url, const HttpGetOptions& options) {
  HttpGetResult result;
  std::unique_ptr<CURL, CurlDeleter> curl(curl::EasyInit());
  if (!curl) {
    Status loaded = curl::Load();
    result.transport_error = loaded.ok() ? "libcurl could not start a transfer" : loaded.message();
    return result;
  }
  curl_slist* list = nullptr;
  for (const std::string& h : options.headers) list = curl::SlistAppend(list, h.c_str());
  std::unique_ptr<curl_slist, SlistDeleter> headers(list);
  std::string range;
  if (options.range_from) {
    range = std::to_string(*options.range_from) + "-" +
            (options.range_to ? std::to_string(*options.range_to) : "");
  }
  TransferState st{curl.get(), &options, &result};
  SetOptions(curl.get(), url, options, &st, headers.get(), range);
  CURLcode rc = curl::EasyPerform(curl.get());
  curl::EasyGetinfo(curl.get(), CURLINFO_RESPONSE_CODE, &result.status);
  result.cancelled = rc == CURLE_ABORTED_BY_CALLBACK;
  result.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
  result.transport_ok = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && result.stopped_by_sink);
  if (!result.transport_ok) result.transport_error = curl::EasyStrerror(rc);
  return result;
}

std::string EscapePathSegment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace zest::models
