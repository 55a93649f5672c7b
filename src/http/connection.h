// Connection: one accepted TCP connection, served by a coroutine on its own
// strand: read a request, route it, run the handler while watching the
// socket for the client going away, repeat while keep-alive allows.
// Private to http/ (server.cc creates connections; nothing else sees them).
//
// A Connection is shared: its coroutine and pending socket operations hold
// it alive, and the ConnectionRegistry keeps weak handles so Server::Stop()
// can close whatever is still open.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "http/router.h"
#include "http/server.h"
#include "http/socket_response_writer.h"

namespace zest::http {

// What every connection of one server shares; immutable once serving.
struct ServeContext {
  const Router* router = nullptr;  // owned by the Server's creator, outlives it
  ErrorRenderer render_error;
  ServerOptions options;
};

class Connection;

// The live connections of one server. Thread-safe.
class ConnectionRegistry {
 public:
  // The connection's id, or nullopt once AbortAll() ran (the server is
  // stopping and the caller must drop the connection).
  std::optional<std::uint64_t> Add(std::weak_ptr<Connection> connection);
  void Remove(std::uint64_t id);
  // Aborts every live connection (each on its own strand) and refuses new
  // ones; returns at once.
  void AbortAll();

 private:
  std::mutex mutex_;
  bool closed_ = false;                                                // guarded by mutex_
  std::uint64_t next_id_ = 0;                                          // guarded by mutex_
  std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> live_;  // guarded by mutex_
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `socket` must use a strand executor: everything below runs on it.
  Connection(boost::asio::ip::tcp::socket socket, std::shared_ptr<const ServeContext> context,
             std::shared_ptr<ConnectionRegistry> registry);

  // Registers `connection` and spawns its request loop on its strand.
  static void Launch(std::shared_ptr<Connection> connection);
  // Closes the socket (on the strand) and reports the client gone to a
  // running handler. Thread-safe.
  void Abort();

 private:
  struct ParsedRequest {
    Request request;
    bool keep_alive = false;  // per HTTP/1.x rules (version, Connection header)
  };

  boost::asio::awaitable<void> Run();
  boost::asio::awaitable<std::optional<ParsedRequest>> ReadRequest();
  boost::asio::awaitable<void> AnswerReadError(const boost::system::error_code& ec);
  // Routes and answers one request; returns whether to keep the connection.
  boost::asio::awaitable<bool> Serve(Request& request, bool keep_alive);
  boost::asio::awaitable<void> RunHandler(const Handler& handler, Request& request);
  boost::asio::awaitable<void> SendError(int status, const std::string& message,
                                         const Headers& extra = {});
  // Half-closes, then discards what the client still sends (briefly), so a
  // rejected request's unread body does not turn our answer into a reset.
  boost::asio::awaitable<void> LingerClose();
  void CloseSocket();

  // The disconnect watch: while a handler runs, a readable socket with no
  // bytes available means the peer closed.
  void StartWatch();
  void StopWatch();
  void OnReadable(const boost::system::error_code& ec, std::uint64_t generation);

  boost::asio::ip::tcp::socket socket_;
  std::shared_ptr<const ServeContext> context_;
  std::shared_ptr<ConnectionRegistry> registry_;
  std::uint64_t id_ = 0;
  std::string remote_address_;
  boost::beast::flat_buffer buffer_;
  SocketResponseWriter writer_;
  bool watching_ = false;
  // Bumped when a watch ends, so a completion already queued for an old
  // watch is ignored.
  std::uint64_t watch_generation_ = 0;
};

}  // namespace zest::http
