#include "http/connection.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <spdlog/spdlog.h>
#include <utility>
#include <vector>

#include "core/logging.h"
#include "http/request_id.h"

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

std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

// Client protocol errors we answer with 400 (as opposed to the connection
// simply ending, which needs no answer).
bool IsParseError(const error_code& ec) {
  return ec.category() == beast_http::make_error_code(beast_http::error::bad_method).category() &&
         ec != beast_http::error::end_of_stream && ec != beast_http::error::partial_message;
}

Request ToRequest(beast_http::request<beast_http::string_body>&& message,
                  const std::string& remote_address) {
  Request request;
  request.method = ToString(message.method_string());
  request.target = ToString(message.target());
  std::size_t question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) request.query = request.target.substr(question + 1);
  for (const auto& field : message) {
    request.headers.emplace_back(ToString(field.name_string()), ToString(field.value()));
  }
  request.body = std::move(message.body());
  request.remote_address = remote_address;
  return request;
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

std::string JoinMethods(const std::vector<std::string>& methods) {
  std::string joined;
  for (const std::string& method : methods) {
    if (!joined.empty()) joined += ", ";
    joined += method;
  }
  return joined;
}

}  // namespace

std::optional<std::uint64_t> ConnectionRegistry::Add(std::weak_ptr<Connection> connection) {
  std::lock_guard lock(mutex_);
  if (closed_) return std::nullopt;
  std::uint64_t id = ++next_id_;
  live_.emplace(id, std::move(connection));
  return id;
}

void ConnectionRegistry::Remove(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  live_.erase(id);
}

void ConnectionRegistry::AbortAll() {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (const auto& [id, weak] : live_) {
      if (auto connection = weak.lock()) live.push_back(std::move(connection));
    }
  }
  for (const auto& connection : live) connection->Abort();
}

Connection::Connection(tcp::socket socket, std::shared_ptr<const ServeContext> context,
                       std::shared_ptr<ConnectionRegistry> registry)
    : socket_(std::move(socket)),
      context_(std::move(context)),
      registry_(std::move(registry)),
      writer_(socket_) {}

void Connection::Launch(std::shared_ptr<Connection> connection) {
  std::optional<std::uint64_t> id = connection->registry_->Add(connection);
  if (!id) return;  // the server is stopping; the socket closes with the connection
  connection->id_ = *id;
  auto executor = connection->socket_.get_executor();
  auto run = connection->Run();
  // The completion handler owns the connection until the loop has ended.
  net::co_spawn(executor, std::move(run), [connection](std::exception_ptr error) {
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
    self->CloseSocket();
  });
}

net::awaitable<void> Connection::Run() {
  remote_address_ = PeerAddress(socket_);
  while (socket_.is_open()) {
    std::optional<ParsedRequest> parsed = co_await ReadRequest();
    if (!parsed) break;
    if (!co_await Serve(parsed->request, parsed->keep_alive)) break;
  }
  CloseSocket();
  registry_->Remove(id_);
}

net::awaitable<std::optional<Connection::ParsedRequest>> Connection::ReadRequest() {
  beast_http::request_parser<beast_http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(context_->options.max_header_bytes));
  parser.body_limit(context_->options.max_body_bytes);
  auto [ec, n] = co_await beast_http::async_read_header(socket_, buffer_, parser, kTuple);
  if (!ec && !parser.is_done()) {
    // Clients that wait for "100 Continue" (curl, for large bodies) would
    // otherwise stall for a second before sending the body.
    if (beast::iequals(parser.get()[beast_http::field::expect], "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      std::tie(ec, n) = co_await net::async_write(socket_, net::buffer(kContinue), kTuple);
    }
    if (!ec) std::tie(ec, n) = co_await beast_http::async_read(socket_, buffer_, parser, kTuple);
  }
  if (ec) {
    co_await AnswerReadError(ec);
    co_return std::nullopt;
  }
  bool keep_alive = parser.get().keep_alive();
  co_return ParsedRequest{ToRequest(parser.release(), remote_address_), keep_alive};
}

net::awaitable<void> Connection::AnswerReadError(const error_code& ec) {
  if (ec == beast_http::error::body_limit) {
    writer_.Reset(false);
    writer_.SetRequestId(RequestIdFor(""));
    co_await SendError(413, "request body larger than " +
                                std::to_string(context_->options.max_body_bytes) + " bytes");
    co_await LingerClose();
  } else if (IsParseError(ec)) {
    writer_.Reset(false);
    writer_.SetRequestId(RequestIdFor(""));
    co_await SendError(400, "malformed HTTP request: " + ec.message());
    co_await LingerClose();
  } else {
    spdlog::debug("http: connection from {} ended: {}", remote_address_, ec.message());
  }
}

net::awaitable<bool> Connection::Serve(Request& request, bool keep_alive) {
  auto started = std::chrono::steady_clock::now();
  writer_.Reset(keep_alive);
  request.id = RequestIdFor(request.Header("X-Request-Id"));
  writer_.SetRequestId(request.id);
  Router::Match match = context_->router->Find(request.method, request.path);
  switch (match.kind) {
    case Router::MatchKind::kNoRoute:
      co_await SendError(404, "no route for " + request.method + " " + request.path);
      break;
    case Router::MatchKind::kWrongMethod: {
      // Built outside the co_await: GCC 12 rejects a braced list inside it.
      Headers allow;
      allow.emplace_back("Allow", JoinMethods(match.allowed));
      co_await SendError(405, "method " + request.method + " not allowed for " + request.path,
                         allow);
      break;
    }
    case Router::MatchKind::kFound:
      request.params = std::move(match.params);
      co_await RunHandler(*match.handler, request);
      break;
  }
  // Reads that succeed (health checks, scrapes, `zest top` polling) only at
  // debug level, so they do not drown the requests that matter.
  bool routine = request.method == "GET" && writer_.status() > 0 && writer_.status() < 400;
  spdlog::log(routine ? spdlog::level::debug : spdlog::level::info, "{}{} {} {} {:.1f} ms",
              RequestTag(request.id), request.method, request.path, writer_.status(),
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  co_return writer_.keep_alive();
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
  spdlog::error("{}http: {} {} failed: {}", RequestTag(request.id), request.method, request.path, *failure);
  if (!writer_.started() && !writer_.client_gone()) {
    writer_.DisableKeepAlive();
    co_await SendError(500, "internal error");
  }
}

net::awaitable<void> Connection::SendError(int status, const std::string& message,
                                           const Headers& extra) {
  std::string body = context_->render_error
                         ? context_->render_error(status, message)
                         : R"({"error":{"message":"request failed"}})";
  co_await writer_.Send(status, "application/json", std::move(body), extra);
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
  error_code available_ec;
  std::size_t available = ec ? 0 : socket_.available(available_ec);
  // Bytes waiting are a pipelined request: leave them for the next read.
  if (available > 0 && !available_ec) return;
  spdlog::debug("http: client {} went away during a request", remote_address_);
  writer_.MarkClientGone();
}

}  // namespace zest::http
