#include "api/admin/pull_api.h"

#include <nlohmann/json.hpp>

#include "api/admin/request_body.h"
#include "api/request/errors.h"
#include "http/sse.h"

namespace zest::api::admin {

using nlohmann::json;

Result<PullRequest> ZestPullWire::Parse(const std::string& body, std::string* param) const {
  return ParsePullRequest(body, param);
}

boost::asio::awaitable<void> ZestPullWire::SendError(http::ResponseWriter& writer,
                                                     const Status& status,
                                                     const std::string& param) const {
  co_await api::SendError(writer, status, param);
}

std::string ZestPullWire::ProgressLine(const models::PullProgress& p) const {
  json j = {{"status", p.status}};
  if (!p.file.empty()) {
    j["file"] = p.file;
    j["completed"] = p.completed;
    j["total"] = p.total;
    j["file_index"] = p.file_index;
    j["file_count"] = p.file_count;
  }
  return http::SseData(j.dump());
}

std::string ZestPullWire::EndLine(const Result<models::PullResult>& result) const {
  if (!result.ok()) {
    const api::ApiError e = api::MapStatus(result.status());
    return http::SseData(api::ErrorBody(result.status().message(), e.type, e.code));
  }
  return http::SseData(WholeAnswer(*result));
}

std::string ZestPullWire::WholeAnswer(const models::PullResult& r) const {
  return json{{"status", "success"},
              {"model", r.model},
              {"repo", r.repo},
              {"commit", r.commit},
              {"files", r.files}}
      .dump();
}

void PullApi::Register(http::Router& router) {
  router.Add("POST", "/api/v1/pull", [this](http::Request& r, http::ResponseWriter& w) {
    return runner_.Serve(wire_, r, w);
  });
}

}  // namespace zest::api::admin
