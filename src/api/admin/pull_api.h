// PullApi: POST /api/v1/pull {"model": SPEC, "stream": true}. Runs the
// blocking PullService on a small thread pool (never on the I/O threads) and
// reports to the client: with "stream" (the default) as SSE events
//   data: {"status":"downloading","file":F,"completed":N,"total":M}
// at most a few per second, then {"status":"success","model":NAME} or an
// error event in OpenAI's error shape; without, one JSON answer at the end.
// A client that goes away cancels its pull; a download another pull still
// waits for goes on (the Downloader shares it). Ollama's POST /api/pull runs
// the same way with Ollama's request and NDJSON lines (ollama/ollama_pull.h).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <mutex>
#include <vector>

#include "core/mutex.h"
#include "http/router.h"
#include "models/pull_service.h"

namespace zest::api::admin {

class PullApi {
 public:
  // `service` must outlive this object.
  explicit PullApi(models::PullService& service);
  // Cancels pulls still running (their partial files stay) and waits for them.
  ~PullApi();

  void Register(http::Router& router);

  // The client's API: zest's (SSE, OpenAI's errors) or Ollama's (NDJSON).
  enum class Wire { kZest, kOllama };

 private:
  struct Job;
  boost::asio::awaitable<void> Handle(Wire wire, http::Request& request,
                                      http::ResponseWriter& writer);
  boost::asio::awaitable<void> StreamProgress(Wire wire, std::shared_ptr<Job> job,
                                              http::ResponseWriter& writer);
  boost::asio::awaitable<void> AnswerWhole(Wire wire, std::shared_ptr<Job> job,
                                           http::ResponseWriter& writer);
  void Run(std::shared_ptr<Job> job);

  models::PullService& service_;
  Mutex mu_;
  std::vector<std::weak_ptr<Job>> jobs_ GUARDED_BY(mu_);
  boost::asio::thread_pool blocking_{4};
};

}  // namespace zest::api::admin
