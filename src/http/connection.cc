#include "http/connection.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <chrono>
#include <utility>
#include <vector>

#include "core/logging.h"
#include "http/client_group.h"
#include "http/json_depth.h"
#include "http/request_id.h"
#include "http/request_parsing.h"

namespace zest::http {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);
constexpr auto kLingerTime = std::chrono::milliseconds(500);
constexpr std::size_t kLingerMaxBytes = 1024 * 1024;
// How much of a large request body one read takes.
constexpr std::size_t kBodyReadChunk = 64 * 1024;

// The answer to a client over its connection limit, written before any
// request is read (so it cannot go through the router and renderer).
const std::string& TooManyConnectionsAnswer() {
  static const std::string kAnswer = [] {
    std::string body =
        R"({"error":{"message":"too many connections from your address","type":"rate_limit_error",)"
        R"("param":null,"code":"too_many_connections"}})";
    return "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
           "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  return kAnswer;
}

std::string PeerAddress(const tcp::socket& socket) {
  error_code ec;
  tcp::endpoint endpoint = socket.remote_endpoint(ec);
  if (ec) return {};
  net::ip::address address = endpoint.address();
  // A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d.
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6()).to_string();
  }
  return address.to_string();
}

void RefuseConnection(tcp::socket& socket, bool plain) {
  error_code ec;
  if (plain) {
    socket.non_blocking(true, ec);
    socket.write_some(net::buffer(TooManyConnectionsAnswer()), ec);
  }
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

}  // namespace

Connection::Connection(Transport transport, std::shared_ptr<const ServeContext> context,
                       std::shared_ptr<ConnectionRegistry> registry,
                       std::shared_ptr<void> loop_hold)
    : transport_(std::move(transport)),
      socket_(transport_.socket()),
      context_(std::move(context)),
      registry_(std::move(registry)),
      loop_hold_(std::move(loop_hold)),
      writer_(transport_),
      deadline_(transport_.get_executor()) {}

void Connection::Launch(const std::shared_ptr<Connection>& connection) {
  connection->remote_address_ = PeerAddress(connection->socket_);
  std::weak_ptr<Connection> weak = connection;
  auto abort = [weak] {
    if (auto live = weak.lock()) live->Abort();
  };
  const std::string client = ClientGroup(connection->remote_address_);
  auto added = connection->registry_->Add(client, abort, &connection->id_);
  if (added == ConnectionRegistry::AddResult::kStopping) return;  // closes with the connection
  if (added == ConnectionRegistry::AddResult::kTooMany) {
    spdlog::warn("http: refusing a connection from {}: {} open and every one busy",
                 connection->remote_address_, connection->registry_->CountFrom(client));
    RefuseConnection(connection->socket_, !connection->transport_.is_tls());
    return;
  }
  auto executor = connection->socket_.get_executor();
  auto run = connection->Run();
  // The completion handler owns the connection until the loop has ended.
  net::co_spawn(executor, std::move(run), [connection](const std::exception_ptr& error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      spdlog::error("http: connection {} failed: {}", connection->remote_address_, e.what());
    }
  });
}

void Connection::Abort() {
  net::post(socket_.get_executor(), [self = shared_from_this()] {
    self->writer_.MarkClientGone();
    self->DisarmDeadline();
    self->CloseSocket();
  });
}

net::awaitable<void> Connection::Run() {
  // The first request's header timeout runs from the accept, TLS handshake
  // included: a connection that never sends a whole request goes away.
  ArmDeadline(context_->options.header_timeout);
  bool open = !transport_.is_tls() || co_await Handshake();
  while (open && socket_.is_open()) {
    if (!co_await ServeOne()) break;
  }
  DisarmDeadline();
  CloseSocket();
  registry_->Remove(id_);
}

net::awaitable<bool> Connection::Handshake() {
  // Plain HTTP on the HTTPS port: say so in plain text rather than failing
  // the handshake silently. A TLS client's first byte is 0x16 (handshake).
  auto [wait_ec] = co_await socket_.async_wait(tcp::socket::wait_read, kTuple);
  unsigned char first = 0;
  error_code peek_ec;
  if (!wait_ec) socket_.receive(net::buffer(&first, 1), tcp::socket::message_peek, peek_ec);
  if (wait_ec || peek_ec) co_return false;
  if (first != 0x16) {
    static const std::string kPlainOnTls =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n"
        "Content-Length: 45\r\n\r\nThis port speaks HTTPS: use an https:// URL.\n";
    co_await net::async_write(socket_, net::buffer(kPlainOnTls), kTuple);
    co_await LingerClose();
    co_return false;
  }
  auto [ec] = co_await transport_.tls().async_handshake(net::ssl::stream_base::server, kTuple);
  if (ec) spdlog::debug("http: TLS handshake with {} failed: {}", remote_address_, ec.message());
  co_return !ec;
}

net::awaitable<bool> Connection::WaitForRequest() {
  if (buffer_.size() > 0) co_return true;  // a pipelined request is already here
  if (transport_.is_tls()) {
    // The next request may already sit, still encrypted, in the TLS layer,
    // where a socket wait cannot see it: the header read gets both
    // allowances instead.
    ArmDeadline(context_->options.idle_timeout + context_->options.header_timeout);
    co_return true;
  }
  ArmDeadline(context_->options.idle_timeout);
  auto [ec] = co_await socket_.async_wait(tcp::socket::wait_read, kTuple);
  DisarmDeadline();
  if (ec) {
    spdlog::debug("http: closing {}: {}", remote_address_, timed_out_ ? "idle" : ec.message());
    co_return false;
  }
  ArmDeadline(context_->options.header_timeout);
  co_return true;
}

net::awaitable<bool> Connection::ServeOne() {
  if (!first_request_ && !co_await WaitForRequest()) co_return false;
  first_request_ = false;
  RequestParser parser;
  ConfigureParser(parser, context_->options);
  auto [ec, n] = co_await beast_http::async_read_header(transport_, buffer_, parser, kTuple);
  DisarmDeadline();
  if (ec) {
    co_await AnswerReadError(ec);
    co_return false;
  }
  auto started = std::chrono::steady_clock::now();
  Request request = RequestHead(parser.get(), remote_address_);
  writer_.Reset(parser.get().keep_alive());
  request.id = RequestIdFor(request.Header("X-Request-Id"));
  writer_.SetRequestId(request.id);
  body_pending_ = !parser.is_done();
  if (HasUnsupportedTransferCoding(parser.get())) {
    // Its body cannot be read as sent: answer and close.
    NoteRejected("malformed");
    body_pending_ = true;
    co_await Refuse(501, "Transfer-Encoding: zest accepts the chunked coding only");
    LogAccess(request, started);
    co_await LingerClose();
    co_return false;
  }
  if (!context_->hosts.Allows(request.Header("Host"))) {
    // DNS rebinding: a page whose name resolves here must not reach zest.
    NoteRejected("host");
    std::string message = "this server does not answer for the host '" +
                          std::string(request.Header("Host")) +
                          "': add its name to server.allowed_hosts";
    co_await Refuse(421, message);
    LogAccess(request, started);
    if (body_pending_) co_await LingerClose();
    co_return writer_.keep_alive() && !body_pending_;
  }
  if (context_->options.redirect_to_https_port != 0) {
    co_await RedirectToHttps(request);
    LogAccess(request, started);
    if (body_pending_) co_await LingerClose();
    co_return false;
  }
  const Handler* handler = co_await Admit(request);
  if (handler == nullptr) {
    LogAccess(request, started);
    // Refused before its body was read: close rather than read it.
    if (body_pending_) co_await LingerClose();
    co_return writer_.keep_alive() && !body_pending_;
  }
  // Held until the request is done: its body is in memory until then.
  std::optional<ByteBudget::Lease> body_room =
      body_pending_ ? ReserveBody(parser) : std::optional<ByteBudget::Lease>();
  if (body_pending_) {
    if (!body_room) {
      NoteRejected("rate_limit");
      Headers retry;  // named: no temporaries inside co_await (GCC 12)
      retry.emplace_back("Retry-After", "1");
      co_await Refuse(503,
                      "the server holds as many request bodies in memory as it may "
                      "(server.max_body_memory_mb); retry shortly",
                      retry);
      LogAccess(request, started);
      co_await LingerClose();
      co_return false;
    }
    if (!co_await ReadBody(parser)) co_return false;
  }
  request.body = std::move(parser.get().body());
  co_return co_await Serve(*handler, request, started);
}

// Room for the body the headers announce in the server's body budget:
// its Content-Length, or the largest a body may be when it is chunked.
std::optional<ByteBudget::Lease> Connection::ReserveBody(const RequestParser& parser) {
  const auto length = parser.content_length();
  const uint64_t bytes = length ? *length : context_->options.max_body_bytes;
  return context_->bodies->TryTake(bytes);
}

// The body after the headers (100 Continue first when the client waits
// for it); false when it cannot be read (answered, or the client went).
net::awaitable<bool> Connection::ReadBody(RequestParser& parser) {
  error_code ec;
  // Clients that wait for "100 Continue" (curl, for large bodies) would
  // otherwise stall for a second before sending the body.
  if (beast::iequals(parser.get()[beast_http::field::expect], "100-continue")) {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    std::tie(ec, std::ignore) =
        co_await net::async_write(transport_, net::buffer(kContinue), kTuple);
  }
  ArmDeadline(context_->options.body_timeout);
  // Beast reads at most the buffer's spare capacity at a time, which after
  // the headers is a few hundred bytes: a 10 MB upload took 20,000 reads.
  // Read it in 64 KiB pieces instead.
  if (auto length = parser.content_length(); length && *length > kBodyReadChunk) {
    buffer_.reserve(buffer_.size() + kBodyReadChunk);
  }
  if (!ec) {
    std::tie(ec, std::ignore) =
        co_await beast_http::async_read(transport_, buffer_, parser, kTuple);
  }
  buffer_.shrink_to_fit();  // an idle kept-alive connection holds no 64 KiB
  DisarmDeadline();
  if (ec) {
    co_await AnswerReadError(ec);
    co_return false;
  }
  co_return true;
}

// A request admitted and read whole: the body's nesting limit, a long-lived
// stream's place, then its handler; returns whether to keep the connection.
net::awaitable<bool> Connection::Serve(const Handler& handler, Request& request,
                                       std::chrono::steady_clock::time_point started) {
  // One limit for every JSON route, before any handler parses the body.
  if (json_body_ && JsonDeeperThan(request.body, context_->options.max_json_depth)) {
    NoteRejected("malformed");
    std::string message = "the request body nests deeper than " +
                          std::to_string(context_->options.max_json_depth) +
                          " levels (server.max_json_depth)";
    co_await SendError(400, message);
    LogAccess(request, started);
    co_return writer_.keep_alive();
  }
  // A long-lived stream counts against its address's streams, so that
  // streams cannot take the room of the address's plain requests.
  if (long_lived_ && !registry_->SetStreaming(id_, true)) {
    NoteRejected("rate_limit");
    Headers retry;
    retry.emplace_back("Retry-After", "1");
    co_await Refuse(429,
                    "too many open streams from your address: at most " +
                        std::to_string(context_->options.max_streams_per_client) +
                        " (events, logs followed)",
                    retry);
    LogAccess(request, started);
    co_return writer_.keep_alive();
  }
  // Busy: not to be closed to make room while it runs. An inference key's
  // requests count against the key's share, from whatever address.
  if (request.inference_key && !request.principal.empty()) {
    if (!registry_->SetBusyFor(id_, request.principal)) {
      if (long_lived_) registry_->SetStreaming(id_, false);
      NoteRejected("rate_limit");
      Headers retry;
      retry.emplace_back("Retry-After", "1");
      co_await Refuse(429,
                      "too many requests in progress for this API key: at most half of "
                      "server.max_connections (" +
                          std::to_string(context_->options.max_connections / 2) + ")",
                      retry);
      LogAccess(request, started);
      co_return writer_.keep_alive();
    }
  } else {
    registry_->SetBusy(id_, true);
  }
  co_await RunHandler(handler, request);
  registry_->SetBusy(id_, false);
  if (long_lived_) registry_->SetStreaming(id_, false);
  LogAccess(request, started);
  co_return writer_.keep_alive();
}

// One line per request. Reads that succeed (health checks, scrapes, `zest
// top` polling) only at debug level, so they do not drown the requests that
// matter.
void Connection::LogAccess(const Request& request, std::chrono::steady_clock::time_point started) {
  if (writer_.status() >= 400 && context_->options.on_failed) {
    context_->options.on_failed(
        {request.id, request.method, request.path, writer_.status(), writer_.error_body()});
  }
  bool routine = request.method == "GET" && writer_.status() > 0 && writer_.status() < 400;
  spdlog::log(routine ? spdlog::level::debug : spdlog::level::info, "{}{} {} {} {:.1f} ms",
              RequestTag(request.id), request.method, request.path, writer_.status(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count());
}

net::awaitable<void> Connection::AnswerReadError(const error_code& ec) {
  int status = timed_out_ ? 408 : StatusForParseError(ec);
  if (status == 0) {
    spdlog::debug("http: connection from {} ended: {}", remote_address_, ec.message());
    co_return;
  }
  if (status == 408) {
    spdlog::debug("http: {} was too slow sending its request; closing", remote_address_);
  }
  writer_.Reset(false);
  writer_.SetRequestId(RequestIdFor(""));
  NoteRejected(status == 408                    ? "timeout"
               : status == 413 || status == 431 ? "too_large"
                                                : "malformed");
  // Computed outside the co_await: GCC 12 mis-destroys a ?: temporary there.
  std::string message = status == 408 ? std::string("request not received in time")
                                      : MessageForParseError(ec, context_->options);
  co_await SendError(status, message);
  if (status != 408) co_await LingerClose();
}

void Connection::NoteRejected(std::string_view reason) {
  if (context_->options.on_rejected) context_->options.on_rejected(reason);
}

net::awaitable<void> Connection::Refuse(int status, const std::string& message,
                                        const Headers& extra) {
  if (body_pending_) writer_.DisableKeepAlive();
  co_await SendError(status, message, extra);
}

net::awaitable<void> Connection::RunHandler(const Handler& handler, Request& request) {
  StartWatch();
  std::optional<std::string> failure;
  try {
    co_await handler(request, writer_);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  StopWatch();
  writer_.EndHandler();
  if (!failure && !writer_.started() && !writer_.client_gone()) {
    failure = "handler returned without responding";
  }
  if (!failure) co_return;
  spdlog::error("{}http: {} {} failed: {}", RequestTag(request.id), request.method, request.path,
                *failure);
  if (!writer_.started() && !writer_.client_gone()) {
    writer_.DisableKeepAlive();
    co_await SendError(500, "internal error");
  }
}

net::awaitable<void> Connection::SendError(int status, const std::string& message,
                                           const Headers& extra) {
  std::string body = context_->render_error ? context_->render_error(status, message)
                                            : R"({"error":{"message":"request failed"}})";
  co_await writer_.Send(status, "application/json", std::move(body), extra);
}

void Connection::ArmDeadline(std::chrono::seconds after) {
  timed_out_ = false;
  std::uint64_t generation = ++deadline_generation_;
  deadline_.expires_after(after);
  deadline_.async_wait([self = shared_from_this(), generation](const error_code& ec) {
    if (ec || generation != self->deadline_generation_) return;
    self->timed_out_ = true;
    error_code ignored;
    self->socket_.cancel(ignored);
  });
}

void Connection::DisarmDeadline() {
  ++deadline_generation_;
  deadline_.cancel();
}

net::awaitable<void> Connection::LingerClose() {
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  net::steady_timer deadline(socket_.get_executor());
  deadline.expires_after(kLingerTime);
  deadline.async_wait([self = shared_from_this()](const error_code& wait_ec) {
    error_code ignored;
    if (!wait_ec) self->socket_.cancel(ignored);
  });
  std::vector<char> scratch(16 * 1024);
  std::size_t drained = 0;
  while (drained < kLingerMaxBytes) {
    auto [read_ec, n] = co_await socket_.async_read_some(net::buffer(scratch), kTuple);
    if (read_ec) break;
    drained += n;
  }
  deadline.cancel();
  CloseSocket();
}

void Connection::CloseSocket() {
  if (!socket_.is_open()) return;
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  socket_.close(ec);
}

void Connection::StartWatch() {
  watching_ = true;
  std::uint64_t generation = watch_generation_;
  socket_.async_wait(tcp::socket::wait_read,
                     [self = shared_from_this(), generation](const error_code& ec) {
                       self->OnReadable(ec, generation);
                     });
}

void Connection::StopWatch() {
  if (!watching_) return;
  watching_ = false;
  ++watch_generation_;
  error_code ec;
  // Nothing else is pending on the socket now: the handler has returned.
  socket_.cancel(ec);
}

void Connection::OnReadable(const error_code& ec, std::uint64_t generation) {
  if (ec == net::error::operation_aborted || !watching_ || generation != watch_generation_) {
    return;
  }
  watching_ = false;
  if (!ec) {
    // Readiness alone proves nothing: under load the reactor can report a
    // read edge whose bytes the request's own reads already took, and
    // treating that as a disconnect dropped kept-alive requests unanswered
    // (found by tests/integration/chaos.test.mjs). Peek: bytes waiting are
    // a pipelined request (leave them for the next read); nothing to read
    // yet means keep watching; only EOF or an error is a client gone.
    char byte = 0;
    ssize_t peeked = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked > 0) return;
    if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      StartWatch();
      return;
    }
  }
  spdlog::debug("http: client {} went away during a request", remote_address_);
  writer_.MarkClientGone();
}

}  // namespace zest::http
