// A pull from the hub for any API's pull route: PullRunner runs the
// blocking PullService on a small thread pool (never on the I/O threads)
// and reports to the client in its API's shape (a PullWire): with
// "stream" (the default) as progress lines at most a few a second, then
// success or an error; without, one answer at the end. A client that goes
// away cancels its pull; a download another pull still waits for goes on
// (the Downloader shares it). zest's own route (admin/pull_api.h) and
// Ollama's (ollama/ollama_pull.h) are the two wires.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/pull_request.h"
#include "core/mutex.h"
#include "core/result.h"
#include "http/request.h"
#include "http/response_writer.h"
#include "models/pull_service.h"

namespace zest::api {

// One API's shape of a pull: its request, its progress lines, its answers.
class PullWire {
 public:
  virtual ~PullWire() = default;
  // The request body; kInvalidArgument naming the field in `*param`.
  virtual Result<PullRequest> Parse(const std::string& body, std::string* param) const = 0;
  // An error before the answer starts.
  virtual boost::asio::awaitable<void> SendError(http::ResponseWriter& writer, const Status& status,
                                                 const std::string& param) const = 0;
  // The streamed answer: its content type, a first line ("" for none), one
  // line of progress, the last line (success or failure).
  virtual std::string_view stream_content_type() const = 0;
  virtual std::string StartLine() const = 0;
  virtual std::string ProgressLine(const models::PullProgress& progress) const = 0;
  virtual std::string EndLine(const Result<models::PullResult>& result) const = 0;
  // The whole answer of a pull that succeeded (stream false).
  virtual std::string WholeAnswer(const models::PullResult& result) const = 0;
};

class PullRunner {
 public:
  // `service` must outlive this object.
  explicit PullRunner(models::PullService& service);
  // Cancels pulls still running (their partial files stay) and waits for them.
  ~PullRunner();

  // Serves one pull request in `wire`'s shape; `wire` must outlive it.
  boost::asio::awaitable<void> Serve(const PullWire& wire, http::Request& request,
                                     http::ResponseWriter& writer);

 private:
  struct Job;
  boost::asio::awaitable<void> StreamProgress(const PullWire& wire, std::shared_ptr<Job> job,
                                              http::ResponseWriter& writer);
  boost::asio::awaitable<void> AnswerWhole(const PullWire& wire, std::shared_ptr<Job> job,
                                           http::ResponseWriter& writer);
  void Run(std::shared_ptr<Job> job);

  models::PullService& service_;
  Mutex mu_;
  std::vector<std::weak_ptr<Job>> jobs_ GUARDED_BY(mu_);
  boost::asio::thread_pool blocking_{4};
};

}  // namespace zest::api
