#include "cli/api_client.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "config/settings.h"
#include "http/sse.h"
#include "models/curl_library.h"

namespace zest::cli {
namespace {

using nlohmann::json;

struct CurlDeleter {
  void operator()(CURL* c) const { curl::EasyCleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl::SlistFreeAll(l); }
};
using CurlPtr = std::unique_ptr<CURL, CurlDeleter>;
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

size_t AppendToString(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// The message of an {"error":{"message":...}} body, else the raw body.
std::string ErrorMessage(long status, const std::string& body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_object() && doc.contains("error")) {
    const json& e = doc["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      return e["message"].get<std::string>();
    }
    if (e.is_string()) return e.get<std::string>();
  }
  return "HTTP " + std::to_string(status) + ": " + body;
}

Status Unreachable(const std::string& url, const char* why) {
  return Unavailable("cannot reach zest at " + url + " (" + why +
                     "); start it with `zest serve` or set ZEST_HOST");
}

// State shared with the streaming write callback.
struct StreamState {
  http::SseSplitter splitter;
  const std::function<void(const json&)>* on_data;
  const std::atomic<bool>* cancel;
  std::string error;  // an error event's message
  std::string raw;    // body kept when the answer is not a stream (errors)
};

size_t OnStreamBytes(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<StreamState*>(user);
  if (st->cancel && st->cancel->load()) return 0;  // aborts the transfer
  if (st->raw.size() < 65536) st->raw.append(data, size * n);
  for (const auto& event : st->splitter.Feed(std::string_view(data, size * n))) {
    if (event.data.empty() || event.data == "[DONE]") continue;
    json doc = json::parse(event.data, nullptr, false);
    if (doc.is_discarded()) continue;
    if (doc.contains("error")) {
      st->error = ErrorMessage(500, event.data);
      continue;
    }
    (*st->on_data)(doc);
  }
  return size * n;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<StreamState*>(user);
  return st->cancel && st->cancel->load() ? 1 : 0;
}

}  // namespace

std::string ServerUrlFromEnv(const char* zest_host) {
  std::string host = zest_host && *zest_host ? zest_host : "http://127.0.0.1:9378";
  if (host.find("://") == std::string::npos) host = "http://" + host;
  while (!host.empty() && host.back() == '/') host.pop_back();
  return host;
}

// JSON, plus the key in ZEST_API_KEY when set (a server with keys needs it).
static curl_slist* ClientHeaders() {
  curl_slist* headers = curl::SlistAppend(nullptr, "Content-Type: application/json");
  if (auto key = config::ProcessEnv("ZEST_API_KEY"); key && !key->empty()) {
    headers = curl::SlistAppend(headers, ("Authorization: Bearer " + *key).c_str());
  }
  return headers;
}

Result<json> ApiClient::Get(const std::string& path) const { return Request("GET", path, nullptr); }

Result<json> ApiClient::Post(const std::string& path, const json& body) const {
  std::string text = body.dump();
  return Request("POST", path, &text);
}

Result<json> ApiClient::Request(const std::string& method, const std::string& path,
                                const std::string* body) const {
  CurlPtr curl(curl::EasyInit());
  if (!curl)
    return curl::Load().ok() ? Internal("libcurl could not start a request") : curl::Load();
  std::string url = base_url_ + path;
  std::string response;
  SlistPtr headers(ClientHeaders());
  curl::EasySetopt(curl.get(), CURLOPT_URL, url.c_str());
  curl::EasySetopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
  curl::EasySetopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl::EasySetopt(curl.get(), CURLOPT_WRITEFUNCTION, AppendToString);
  curl::EasySetopt(curl.get(), CURLOPT_WRITEDATA, &response);
  curl::EasySetopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 5L);
  if (body) curl::EasySetopt(curl.get(), CURLOPT_POSTFIELDS, body->c_str());
  CURLcode rc = curl::EasyPerform(curl.get());
  if (rc != CURLE_OK) return Unreachable(base_url_, curl::EasyStrerror(rc));
  long status = 0;
  curl::EasyGetinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    return Status(status == 404 ? ErrorCode::kNotFound : ErrorCode::kInvalidArgument,
                  ErrorMessage(status, response));
  }
  json doc = json::parse(response, nullptr, false);
  if (doc.is_discarded())
    return Internal("the server sent invalid JSON: " + response.substr(0, 200));
  return doc;
}

Status ApiClient::Stream(const std::string& path, const json& body,
                         const std::function<void(const json&)>& on_data,
                         const std::atomic<bool>* cancel) const {
  CurlPtr curl(curl::EasyInit());
  if (!curl)
    return curl::Load().ok() ? Internal("libcurl could not start a request") : curl::Load();
  std::string url = base_url_ + path;
  std::string text = body.dump();
  StreamState state{{}, &on_data, cancel, {}, {}};
  SlistPtr headers(ClientHeaders());
  curl::EasySetopt(curl.get(), CURLOPT_URL, url.c_str());
  curl::EasySetopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  if (!body.is_null()) curl::EasySetopt(curl.get(), CURLOPT_POSTFIELDS, text.c_str());
  curl::EasySetopt(curl.get(), CURLOPT_WRITEFUNCTION, OnStreamBytes);
  curl::EasySetopt(curl.get(), CURLOPT_WRITEDATA, &state);
  curl::EasySetopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl::EasySetopt(curl.get(), CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl::EasySetopt(curl.get(), CURLOPT_XFERINFODATA, &state);
  curl::EasySetopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 5L);
  CURLcode rc = curl::EasyPerform(curl.get());
  if (cancel && cancel->load()) return Status(ErrorCode::kCancelled, "stopped");
  if (rc != CURLE_OK) return Unreachable(base_url_, curl::EasyStrerror(rc));
  long status = 0;
  curl::EasyGetinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) return InvalidArgument(ErrorMessage(status, state.raw));
  if (!state.error.empty()) return EngineFailed(state.error);
  return Status::Ok();
}

ApiClient ClientFromEnv() {
  return ApiClient(ServerUrlFromEnv(config::ProcessEnv("ZEST_HOST").value_or("").c_str()));
}

int PrintError(const Status& status) {
  std::fprintf(stderr, "zest: %s\n", status.message().c_str());
  return 1;
}

}  // namespace zest::cli
