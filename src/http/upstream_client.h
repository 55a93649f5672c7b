// UpstreamClient: an HTTP/1.1 client over a UNIX socket, used to talk to
// engine processes (`llama-server --host DIR/x.sock`). Response bodies are
// read incrementally (chunked decoding included), so SSE streams can be
// relayed event by event without buffering the whole response.
//
// One UpstreamResponse belongs to one coroutine; Cancel() may be called from
// any handler on the same executor (e.g. on client disconnect) and makes a
// pending read finish with kCancelled.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "core/result.h"
#include "http/request.h"
#include "http/upstream_pool.h"

namespace zest::http {

// Aborts an upstream exchange from outside its coroutine, e.g. from
// ResponseWriter::OnClientGone while SendUpstream still waits for the
// response headers (a non-streamed completion sends them only when the
// engine has finished generating, so UpstreamResponse::Cancel comes too late).
// Use on the exchange's executor only.
class UpstreamCanceller {
 public:
  // A pending or later SendUpstream/ReadSome/ReadAll fails with kCancelled.
  void Cancel() {
    cancelled_ = true;
    if (hook_) std::exchange(hook_, nullptr)();
  }
  bool cancelled() const { return cancelled_; }
  // For the client implementation: `hook` runs on Cancel(); empty detaches.
  void SetHook(std::function<void()> hook) { hook_ = std::move(hook); }

 private:
  bool cancelled_ = false;
  std::function<void()> hook_;
};

// Cancels a request that is not done by a deadline (a time point, or a
// duration from now): give canceller() to the UpstreamRequest. The timer's
// handler is a plain callback, not a coroutine, and holds only the
// canceller; the timer stops when this goes out of scope.
class UpstreamDeadline {
 public:
  template <typename Executor, typename When>
  UpstreamDeadline(const Executor& executor, When when) : timer_(executor, when) {
    timer_.async_wait([canceller = canceller_](const boost::system::error_code& ec) {
      if (!ec) canceller->Cancel();
    });
  }
  ~UpstreamDeadline() { timer_.cancel(); }
  UpstreamDeadline(const UpstreamDeadline&) = delete;
  UpstreamDeadline& operator=(const UpstreamDeadline&) = delete;

  const std::shared_ptr<UpstreamCanceller>& canceller() const { return canceller_; }

 private:
  std::shared_ptr<UpstreamCanceller> canceller_ = std::make_shared<UpstreamCanceller>();
  boost::asio::steady_timer timer_;
};

struct UpstreamRequest {
  std::string method = "GET";
  std::string target = "/";
  Headers headers;  // Host and Content-Length are set automatically
  std::string body;
  std::chrono::milliseconds connect_timeout{2000};
  // Optional; lets the caller abort before the response headers arrive.
  std::shared_ptr<UpstreamCanceller> canceller;
  // Optional: a kept-alive connection from it, and back to it once the
  // response was read whole (upstream_pool.h); null: a connection of its
  // own, closed after the response ("Connection: close").
  UpstreamPool* pool = nullptr;
};

class UpstreamResponse {
 public:
  virtual ~UpstreamResponse() = default;
  virtual int status() const = 0;
  virtual const Headers& headers() const = 0;
  // The next piece of the body as it arrives; std::nullopt at the end.
  // An error when the connection broke or was cancelled mid-body.
  virtual boost::asio::awaitable<Result<std::optional<std::string>>> ReadSome() = 0;
  // The whole remaining body (for small, non-streamed responses).
  virtual boost::asio::awaitable<Result<std::string>> ReadAll(std::size_t max_bytes) = 0;
  // Closes the connection; pending and later reads fail with kCancelled.
  virtual void Cancel() = 0;
};

// Connects to `socket_path` (or takes a connection to it from request.pool),
// sends `request` and reads the response headers. kUnavailable when the
// socket does not accept or the peer closes early. A kept-alive connection
// that fails before any byte of the response came (the engine closed it
// while it was idle) is replaced by a new one, once.
boost::asio::awaitable<Result<std::unique_ptr<UpstreamResponse>>> SendUpstream(
    boost::asio::any_io_executor executor, std::string socket_path, UpstreamRequest request);

}  // namespace zest::http
