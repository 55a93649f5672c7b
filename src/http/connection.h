// Connection: one accepted TCP (or TLS) connection, served by a coroutine on
// one event loop, its handlers one at a time: read a request's headers (within the header timeout),
// check CORS, route and API key before the body is read (a refused client
// cannot make zest buffer a body), read the body, run the handler while
// watching the socket for the client going away, repeat while keep-alive
// allows (idle timeout between requests).
// Private to http/ (server.cc creates connections; nothing else sees them).
//
// A Connection is shared: its coroutine and pending socket operations hold
// it alive, and the ConnectionRegistry keeps a way to abort it (through a
// weak handle) so Server::Stop() can close whatever is still open, and a
// new client can take the place of an idle one (connection_registry.h).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/byte_budget.h"
#include "http/authenticator.h"
#include "http/connection_registry.h"
#include "http/cors.h"
#include "http/host_policy.h"
#include "http/request_parsing.h"
#include "http/router.h"
#include "http/server.h"
#include "http/socket_response_writer.h"
#include "http/transport.h"

namespace zest::http {

// What every connection of one server shares; immutable once serving.
struct ServeContext {
  const Router* router = nullptr;  // owned by the Server's creator, outlives it
  ErrorRenderer render_error;
  ServerOptions options;
  CorsPolicy cors;
  HostPolicy hosts;
  // The request bodies every connection holds at once
  // (ServerOptions::max_body_memory_bytes).
  std::shared_ptr<ByteBudget> bodies;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `transport` must use an executor whose handlers never run concurrently
  // (EventLoops::Serial: a strand, or a loop one thread runs): everything
  // below runs on it.
  // `loop_hold` counts the connection on its event loop while it lives
  // (EventLoops::Placement; may be null).
  Connection(Transport transport, std::shared_ptr<const ServeContext> context,
             std::shared_ptr<ConnectionRegistry> registry,
             std::shared_ptr<void> loop_hold = nullptr);

  // Registers `connection` and spawns its request loop on its executor.
  static void Launch(const std::shared_ptr<Connection>& connection);
  // Closes the socket (on its executor) and reports the client gone to a
  // running handler. Thread-safe.
  void Abort();

 private:
  boost::asio::awaitable<void> Run();
  boost::asio::awaitable<bool> Handshake();
  // Reads and answers one request; returns whether to keep the connection.
  boost::asio::awaitable<bool> ServeOne();
  boost::asio::awaitable<bool> ReadBody(RequestParser& parser);
  boost::asio::awaitable<bool> Serve(const Handler& handler, Request& request,
                                     std::chrono::steady_clock::time_point started);
  void LogAccess(const Request& request, std::chrono::steady_clock::time_point started);
  // The whole answer of a redirecting server (ServerOptions::redirect_to_https_port).
  boost::asio::awaitable<void> RedirectToHttps(const Request& request);
  void NoteRejected(std::string_view reason);
  // Waits for the first byte of the next request on a kept-alive connection.
  boost::asio::awaitable<bool> WaitForRequest();
  boost::asio::awaitable<void> AnswerReadError(const boost::system::error_code& ec);
  // CORS, preflight, route and API key: the handler to run, or null when
  // the request was answered here (refused, or OPTIONS).
  boost::asio::awaitable<const Handler*> Admit(Request& request);
  boost::asio::awaitable<void> AnswerOptions(const Request& request);
  std::optional<ByteBudget::Lease> ReserveBody(const RequestParser& parser);
  boost::asio::awaitable<void> Refuse(int status, const std::string& message,
                                      const Headers& extra = {});
  boost::asio::awaitable<void> RunHandler(const Handler& handler, Request& request);
  boost::asio::awaitable<void> SendError(int status, const std::string& message,
                                         const Headers& extra = {});
  // Cancels the socket's pending operations when `after` passes first.
  void ArmDeadline(std::chrono::seconds after);
  void DisarmDeadline();
  // Half-closes, then discards what the client still sends (briefly), so a
  // rejected request's unread body does not turn our answer into a reset.
  boost::asio::awaitable<void> LingerClose();
  void CloseSocket();

  // The disconnect watch: while a handler runs, a readable socket with no
  // bytes available means the peer closed.
  void StartWatch();
  void StopWatch();
  void OnReadable(const boost::system::error_code& ec, std::uint64_t generation);

  Transport transport_;
  boost::asio::ip::tcp::socket& socket_;  // the TCP socket under transport_
  std::shared_ptr<const ServeContext> context_;
  std::shared_ptr<ConnectionRegistry> registry_;
  std::shared_ptr<void> loop_hold_;
  std::uint64_t id_ = 0;
  std::string remote_address_;
  boost::beast::flat_buffer buffer_;
  SocketResponseWriter writer_;
  boost::asio::steady_timer deadline_;
  std::uint64_t deadline_generation_ = 0;
  bool timed_out_ = false;     // the last armed deadline fired
  bool first_request_ = true;  // its header timeout runs from the accept
  bool body_pending_ = false;  // the current request's body is unread
  bool json_body_ = true;      // the current request's route takes JSON
  bool long_lived_ = false;    // the current request's route is a long-lived stream
  bool watching_ = false;
  // Bumped when a watch ends, so a completion already queued for an old
  // watch is ignored.
  std::uint64_t watch_generation_ = 0;
};

}  // namespace zest::http
