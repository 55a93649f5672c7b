#include "api/recent_errors.h"

#include "core/duration.h"

namespace zest::api {
namespace {

constexpr std::size_t kMessageChars = 500;

std::string Clip(std::string text) {
  if (text.size() > kMessageChars) text = text.substr(0, kMessageChars) + "…";
  return text;
}

}  // namespace

std::string RecentErrors::MessageOf(const std::string& body) {
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_object() && parsed.contains("error")) {
    const nlohmann::json& error = parsed["error"];
    if (error.is_string()) return Clip(error.get<std::string>());
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      return Clip(error["message"].get<std::string>());
    }
  }
  return Clip(body);
}

void RecentErrors::Add(const http::FailedRequest& failed) {
  Entry entry{UnixSeconds(), failed, MessageOf(failed.body)};
  entry.request.body.clear();  // the message is what is kept
  MutexLock lock(mutex_);
  entries_.push_front(std::move(entry));
  if (entries_.size() > capacity_) entries_.pop_back();
}

nlohmann::json RecentErrors::Json() const {
  nlohmann::json out = nlohmann::json::array();
  MutexLock lock(mutex_);
  for (const Entry& e : entries_) {
    out.push_back({{"time", e.time},
                   {"request_id", e.request.id},
                   {"method", e.request.method},
                   {"path", e.request.path},
                   {"status", e.request.status},
                   {"message", e.message}});
  }
  return out;
}

}  // namespace zest::api
