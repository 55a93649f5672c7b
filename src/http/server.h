// Server: the HTTP/1.1 gateway. Accepts TCP connections and serves each on
// its own strand as a C++20 coroutine (no thread per connection): keep-alive,
// body size limit (413), routing, a last-resort catch per request (500).
// The io_context and its threads are owned by the caller (app/).
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "http/router.h"

namespace zest::http {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 9378;                          // 0 picks a free port
  std::size_t max_body_bytes = 32 * 1024 * 1024;
  std::size_t max_header_bytes = 64 * 1024;
};

class Server {
 public:
  Server(boost::asio::io_context& io, ServerOptions options, const Router& router,
         ErrorRenderer render_error);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens; errors (address in use, bad host) are returned.
  Status Listen();
  // Starts accepting on the io_context. Call after Listen().
  void Start();
  // Stops accepting and closes open connections. Thread-safe.
  void Stop();
  // The bound port (useful with port 0).
  uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace zest::http
