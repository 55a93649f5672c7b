// ResponseWriter: how a handler answers. Either one Send() with a whole body,
// or StartStream() + WriteChunk()* + EndStream() for chunked/SSE responses;
// each WriteChunk is flushed to the socket before it completes.
//
// Every method returns false when the client is gone (write failed or the
// peer closed); handlers should then stop work and return. A ResponseWriter is
// owned by the connection and used from the handler's coroutine only.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "http/request.h"

namespace zest::http {

class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;

  virtual boost::asio::awaitable<bool> Send(int status, std::string_view content_type,
                                            std::string body, const Headers& extra = {}) = 0;
  // Sends the status line and headers with Transfer-Encoding: chunked.
  virtual boost::asio::awaitable<bool> StartStream(int status, std::string_view content_type,
                                                   const Headers& extra = {}) = 0;
  virtual boost::asio::awaitable<bool> WriteChunk(std::string_view data) = 0;
  virtual boost::asio::awaitable<bool> EndStream() = 0;

  // True once anything was sent (an error can then no longer change status).
  virtual bool started() const = 0;
  // The HTTP status sent, 0 before anything was sent (for metrics and logs).
  virtual int status() const = 0;
  // True once the client disconnected (detected even while no write is
  // pending, by watching the socket for EOF).
  virtual bool client_gone() const = 0;
  // Registers a callback run (on the connection's executor) once, when the
  // client disconnects before the response is complete. Used to cancel the
  // upstream engine request so the engine stops generating. Replaces any
  // earlier callback. When the client is already gone it runs at once,
  // inside this call. Never runs after the handler has returned.
  virtual void OnClientGone(std::function<void()> callback) = 0;
};

}  // namespace zest::http
