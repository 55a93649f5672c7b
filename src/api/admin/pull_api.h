// PullApi: POST /api/v1/pull {"model": SPEC, "stream": true}, run by the
// PullRunner every pull route shares (api/pull_route.h), in zest's shape:
// with "stream" (the default) as SSE events
//   data: {"status":"downloading","file":F,"completed":N,"total":M,...}
// at most a few per second, then {"status":"success","model":NAME,...} or
// an error event in OpenAI's error shape; without, one JSON answer at the
// end.
#pragma once

#include "api/pull_route.h"
#include "http/router.h"

namespace zest::api::admin {

// zest's pull answers (SSE progress, OpenAI's errors).
class ZestPullWire : public PullWire {
 public:
  Result<PullRequest> Parse(const std::string& body, std::string* param) const override;
  boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                         const std::string& param) const override;
  std::string_view stream_content_type() const override { return "text/event-stream"; }
  std::string StartLine() const override { return ""; }
  std::string ProgressLine(const models::PullProgress& progress) const override;
  std::string EndLine(const Result<models::PullResult>& result) const override;
  std::string WholeAnswer(const models::PullResult& result) const override;
};

class PullApi {
 public:
  // `runner` must outlive the router the route is added to.
  explicit PullApi(PullRunner& runner) : runner_(runner) {}

  void Register(http::Router& router);

 private:
  PullRunner& runner_;
  const ZestPullWire wire_;
};

}  // namespace zest::api::admin
