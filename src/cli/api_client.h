// ApiClient: how CLI commands talk to a running zest (libcurl, blocking).
// The server address comes from ZEST_HOST ("host:port" or a URL), default
// http://127.0.0.1:9378. One client per thread.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"

namespace zest::cli {

// "0.0.0.0:8080" → "http://0.0.0.0:8080"; empty → the default.
std::string ServerUrlFromEnv(const char* zest_host);

class ApiClient {
 public:
  explicit ApiClient(std::string base_url) : base_url_(std::move(base_url)) {}

  const std::string& base_url() const { return base_url_; }

  // kUnavailable when the server does not answer (with a hint to start it);
  // the server's own error message for non-2xx answers.
  Result<nlohmann::json> Get(const std::string& path) const;
  Result<nlohmann::json> Post(const std::string& path, const nlohmann::json& body) const;

  // POSTs `body` (GETs when `body` is null) and calls `on_data` with the data of each SSE event as
  // it arrives (not called for "[DONE]"). Stops early, returning kCancelled, when `cancel` becomes
  // true; an error event from the server is returned as an error.
  Status Stream(const std::string& path, const nlohmann::json& body,
                const std::function<void(const nlohmann::json&)>& on_data,
                const std::atomic<bool>* cancel) const;

 private:
  Result<nlohmann::json> Request(const std::string& method, const std::string& path,
                                 const std::string* body) const;
  std::string base_url_;
};

// The client for ZEST_HOST, which every client command uses.
ApiClient ClientFromEnv();

// Prints "zest: MESSAGE" to stderr; returns the exit code 1.
int PrintError(const Status& status);

}  // namespace zest::cli
