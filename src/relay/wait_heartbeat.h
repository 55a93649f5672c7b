// WaitHeartbeat: keeps a streaming client's connection warm while its
// request waits for a slot or for the model to load.
//
// Clients time out reads after ~30 s (many SDK defaults); a 70B model can
// take longer than that to load, and a busy queue longer still. Once the
// wait has lasted one interval, the heartbeat starts the 200 event stream
// and writes an SSE comment (`: loading 'model' (12 s)`) every interval;
// SSE clients ignore comments. A wait shorter than one interval sends
// nothing, so quick errors (404, 429) keep their HTTP status.
//
// Runs on the handler's executor (the connection's strand), so its writes
// never interleave with the handler's: the handler calls Stop() and awaits
// it before writing anything itself.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <string>

#include "http/response_writer.h"

namespace zest::relay {

class WaitHeartbeat {
 public:
  WaitHeartbeat(const boost::asio::any_io_executor& executor, http::ResponseWriter& writer,
                std::chrono::milliseconds interval, std::string model);

  // Begins the heartbeat (a no-op when the interval is zero).
  void Start();
  // What the request is waiting for, shown in the comment.
  void SetPhase(std::string phase) { phase_ = std::move(phase); }
  // Ends the heartbeat and waits until it wrote its last byte. Must be
  // awaited before the WaitHeartbeat is destroyed when Start() was called.
  boost::asio::awaitable<void> Stop();

 private:
  boost::asio::awaitable<void> Loop();

  boost::asio::any_io_executor executor_;
  http::ResponseWriter& writer_;
  const std::chrono::milliseconds interval_;
  const std::string model_;
  std::string phase_ = "queued";
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  boost::asio::steady_timer tick_;
  boost::asio::steady_timer finished_;  // cancelled when Loop() returns
  bool running_ = false;
  bool stopping_ = false;
};

}  // namespace zest::relay
