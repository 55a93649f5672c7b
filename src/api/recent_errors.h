// RecentErrors: the last requests that got an error answer, newest first,
// for the dashboard (GET /api/v1/events). Fed by the gateway for every
// route (http::ServerOptions::on_failed), so refusals (no key, no route,
// bad JSON) show as well as engine and handler errors. Thread-safe.
#pragma once

#include <cstddef>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>

#include "core/mutex.h"
#include "http/server.h"

namespace zest::api {

class RecentErrors {
 public:
  explicit RecentErrors(std::size_t capacity = 50) : capacity_(capacity) {}

  void Add(const http::FailedRequest& failed);
  // [{"time" (unix s), "request_id", "method", "path", "status", "message"}],
  // newest first.
  nlohmann::json Json() const;

  // The message of an error body in any of the APIs' shapes (OpenAI's and
  // Anthropic's {"error":{"message"}}, Ollama's {"error":"..."}), else the
  // body's start. Pure.
  static std::string MessageOf(const std::string& body);

 private:
  struct Entry {
    double time = 0;
    http::FailedRequest request;
    std::string message;
  };
  const std::size_t capacity_;
  mutable Mutex mutex_;
  std::deque<Entry> entries_ GUARDED_BY(mutex_);  // newest first
};

}  // namespace zest::api
