// SocketResponseWriter: the ResponseWriter the server hands to handlers,
// writing straight to a connection's transport (TCP or TLS) with Beast.
// Private to http/.
//
// Owned by one Connection and used only on that connection's strand (the
// handler coroutine, the disconnect watch and Server::Stop all run there).
// Reset() starts the next request on a keep-alive connection.
#pragma once

#include <functional>
#include <string>

#include "http/response_writer.h"
#include "http/transport.h"

namespace zest::http {

class SocketResponseWriter final : public ResponseWriter {
 public:
  // `transport` must outlive the writer.
  explicit SocketResponseWriter(Transport& transport) : socket_(transport) {}

  // Forgets the previous response (and common headers); `keep_alive` is
  // what the request asked for.
  void Reset(bool keep_alive);
  // Headers added to whatever response this request gets (CORS).
  void SetCommonHeaders(Headers headers) { common_headers_ = std::move(headers); }
  // Sent as X-Request-Id with this request's response (cleared by Reset).
  void SetRequestId(std::string id) { request_id_ = std::move(id); }

  boost::asio::awaitable<bool> Send(int status, std::string_view content_type, std::string body,
                                    const Headers& extra = {}) override;
  boost::asio::awaitable<bool> StartStream(int status, std::string_view content_type,
                                           const Headers& extra = {}) override;
  boost::asio::awaitable<bool> WriteChunk(std::string_view data) override;
  boost::asio::awaitable<bool> EndStream() override;

  bool started() const override { return started_; }
  int status() const override { return status_; }
  bool client_gone() const override { return client_gone_; }
  // The body of an error response (status 400 or more) sent whole, its
  // first kErrorBodyKept bytes; empty otherwise.
  const std::string& error_body() const { return error_body_; }
  static constexpr std::size_t kErrorBodyKept = 4096;
  void OnClientGone(std::function<void()> callback) override;

  // The connection saw the peer close (or the server is stopping): marks the
  // client gone and runs the callback if the response was not complete.
  void MarkClientGone();
  // A whole response (Send, or a stream through EndStream) was written.
  bool complete() const { return complete_; }
  // The connection may serve another request after this response.
  bool keep_alive() const { return keep_alive_ && complete_ && !client_gone_; }
  // The handler returned: its callback may point into its frame, so it must
  // never run from now on.
  void EndHandler() { on_client_gone_ = nullptr; }
  // Forces "Connection: close" on a response not yet started.
  void DisableKeepAlive() { keep_alive_ = false; }

 private:
  // Marks the client gone when a write failed; returns !ec.
  bool CheckWrite(const boost::system::error_code& ec);

  Transport& socket_;
  Headers common_headers_;
  bool keep_alive_ = false;
  bool started_ = false;
  int status_ = 0;
  bool streaming_ = false;
  bool complete_ = false;
  bool client_gone_ = false;
  std::function<void()> on_client_gone_;
  std::string request_id_;
  std::string error_body_;
};

}  // namespace zest::http
