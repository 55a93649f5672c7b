#include "http/upstream_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <utility>

namespace zest::http {
namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr auto kTuple = net::as_tuple(net::use_awaitable);
constexpr std::uint32_t kMaxHeaderBytes = 64 * 1024;

Status Cancelled() { return Status(ErrorCode::kCancelled, "upstream request cancelled"); }

std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

// The first read of a response takes this much at once: a whole 1-token
// answer, headers and events, in one read (Beast's default starts at 512
// bytes, three reads and three trips through the event loop for it).
constexpr std::size_t kReadBufferBytes = 16 * 1024;

// One request/response: over a connection of its own ("Connection: close"),
// or over one kept alive in `pool` (given back when the response was read
// whole, see upstream_pool.h).
class Exchange final : public UpstreamResponse {
 public:
  Exchange(const net::any_io_executor& executor, std::shared_ptr<UpstreamCanceller> canceller,
           UpstreamPool* pool, std::string path, std::optional<UpstreamPool::Socket> reused)
      : socket_(reused ? std::move(*reused) : UpstreamPool::Socket(executor)),
        canceller_(std::move(canceller)),
        pool_(pool),
        path_(std::move(path)),
        reused_(reused.has_value()) {
    // The hook is detached in the destructor, so `this` never dangles.
    if (canceller_) canceller_->SetHook([this] { Cancel(); });
    buffer_.reserve(kReadBufferBytes);
  }
  ~Exchange() override {
    if (canceller_) canceller_->SetHook(nullptr);
    if (Reusable()) pool_->Give(path_, std::move(socket_));
  }

  bool reused() const { return reused_; }
  // Nothing of a response came: on a reused connection, the engine closed
  // it while it was idle (it never read the request), so a new connection
  // may carry the request.
  bool nothing_received() const { return !parser_.got_some() && buffer_.size() == 0; }

  net::awaitable<Status> Connect(const std::string& path, std::chrono::milliseconds timeout);
  net::awaitable<Status> Write(const UpstreamRequest& request);
  net::awaitable<Status> ReadHeader();

  int status() const override { return static_cast<int>(parser_.get().result_int()); }
  const Headers& headers() const override { return headers_; }
  net::awaitable<Result<std::optional<std::string>>> ReadSome() override;
  net::awaitable<Result<std::string>> ReadAll(std::size_t max_bytes) override;
  void Cancel() override {
    cancelled_ = true;
    error_code ignored;
    socket_.close(ignored);
  }

 private:
  Status Failure(const error_code& ec, std::string_view during);
  // Whether the connection can carry another request: its response was
  // read to the end with nothing after it, and both sides keep it alive.
  // Not after a chunked response: llama-server closes the connection after
  // a stream without saying so (curl: "Connection died" on the next request).
  bool Reusable() const {
    return pool_ != nullptr && !cancelled_ && !failed_ && socket_.is_open() && parser_.is_done() &&
           parser_.keep_alive() && !parser_.chunked() && buffer_.size() == 0;
  }

  UpstreamPool::Socket socket_;
  std::shared_ptr<UpstreamCanceller> canceller_;
  UpstreamPool* const pool_;
  const std::string path_;
  const bool reused_;
  beast::flat_buffer buffer_;
  beast_http::response_parser<beast_http::buffer_body> parser_;
  Headers headers_;
  bool cancelled_ = false;
  bool failed_ = false;
  std::array<char, 16 * 1024> piece_;
};

Status Exchange::Failure(const error_code& ec, std::string_view during) {
  failed_ = true;
  if (cancelled_) return Cancelled();
  if (ec == beast_http::error::end_of_stream || ec == beast_http::error::partial_message ||
      ec == net::error::eof || ec == net::error::connection_reset) {
    return Unavailable("engine closed the connection " + std::string(during));
  }
  return Unavailable("engine connection failed " + std::string(during) + ": " + ec.message());
}

net::awaitable<Status> Exchange::Connect(const std::string& path,
                                         std::chrono::milliseconds timeout) {
  using namespace net::experimental::awaitable_operators;
  net::steady_timer timer(socket_.get_executor(), timeout);
  auto outcome =
      co_await (socket_.async_connect(net::local::stream_protocol::endpoint(path), kTuple) ||
                timer.async_wait(kTuple));
  if (cancelled_) co_return Cancelled();
  if (outcome.index() == 1) {
    co_return Status(ErrorCode::kUnavailable, "timed out connecting to engine socket " + path);
  }
  auto [ec] = std::get<0>(outcome);
  if (ec) co_return Unavailable("cannot connect to engine socket " + path + ": " + ec.message());
  // The socket lies in the engine's directory: answer only a process of
  // zest's own user, never one of another user's that took its place.
  ucred peer{};
  socklen_t size = sizeof peer;
  if (::getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 ||
      peer.uid != ::geteuid()) {
    co_return Unavailable("engine socket " + path + " is served by another user (uid " +
                          std::to_string(peer.uid) + "), not zest's");
  }
  co_return Status::Ok();
}

net::awaitable<Status> Exchange::Write(const UpstreamRequest& request) {
  beast_http::request<beast_http::string_body> message;
  beast_http::verb verb = beast_http::string_to_verb(request.method);
  if (verb == beast_http::verb::unknown) {
    message.method_string(request.method);
  } else {
    message.method(verb);
  }
  message.target(request.target);
  message.version(11);
  message.set(beast_http::field::host, "localhost");
  for (const auto& [name, value] : request.headers) message.insert(name, value);
  message.keep_alive(pool_ != nullptr);
  message.body() = request.body;
  message.prepare_payload();
  auto [ec, n] = co_await beast_http::async_write(socket_, message, kTuple);
  if (ec) co_return Failure(ec, "while sending the request");
  co_return Status::Ok();
}

net::awaitable<Status> Exchange::ReadHeader() {
  parser_.header_limit(kMaxHeaderBytes);
  // Streams are relayed piece by piece, so their length needs no cap here;
  // ReadAll callers pass their own.
  parser_.body_limit(boost::none);
  auto [ec, n] = co_await beast_http::async_read_header(socket_, buffer_, parser_, kTuple);
  if (ec) co_return Failure(ec, "before responding");
  for (const auto& field : parser_.get()) {
    headers_.emplace_back(ToString(field.name_string()), ToString(field.value()));
  }
  co_return Status::Ok();
}

net::awaitable<Result<std::optional<std::string>>> Exchange::ReadSome() {
  // One socket read may only complete a chunk header; loop until body bytes.
  for (;;) {
    if (cancelled_) co_return Cancelled();
    if (parser_.is_done()) co_return std::optional<std::string>();
    auto& body = parser_.get().body();
    body.data = piece_.data();
    body.size = piece_.size();
    auto [ec, n] = co_await beast_http::async_read_some(socket_, buffer_, parser_, kTuple);
    if (ec == beast_http::error::need_buffer) ec = {};
    if (ec || cancelled_) co_return Failure(ec, "mid-body");
    std::size_t filled = piece_.size() - parser_.get().body().size;
    if (filled > 0) co_return std::optional<std::string>(std::string(piece_.data(), filled));
  }
}

net::awaitable<Result<std::string>> Exchange::ReadAll(std::size_t max_bytes) {
  std::string all;
  for (;;) {
    Result<std::optional<std::string>> piece = co_await ReadSome();
    if (!piece.ok()) co_return piece.status();
    if (!piece->has_value()) co_return all;
    if (all.size() + (*piece)->size() > max_bytes) {
      Cancel();
      co_return Status(ErrorCode::kTooLarge,
                       "engine response larger than " + std::to_string(max_bytes) + " bytes");
    }
    all += **piece;
  }
}

}  // namespace

net::awaitable<Result<std::unique_ptr<UpstreamResponse>>> SendUpstream(
    net::any_io_executor executor, std::string socket_path, UpstreamRequest request) {
  if (request.canceller && request.canceller->cancelled()) co_return Cancelled();
  std::optional<UpstreamPool::Socket> idle;
  if (request.pool != nullptr) idle = request.pool->Take(socket_path, executor);
  auto exchange = std::make_unique<Exchange>(executor, request.canceller, request.pool, socket_path,
                                             std::move(idle));
  // Not a ?: around co_await: GCC 12 mis-destroys the temporaries of one.
  Status status = Status::Ok();
  if (!exchange->reused())
    status = co_await exchange->Connect(socket_path, request.connect_timeout);
  if (status.ok()) status = co_await exchange->Write(request);
  if (status.ok()) status = co_await exchange->ReadHeader();
  if (!status.ok() && exchange->reused() && exchange->nothing_received() &&
      status.code() != ErrorCode::kCancelled) {
    // Closed by the engine while it sat idle: once more on a new connection
    // (the old one first gives up the canceller's hook).
    exchange.reset();
    exchange = std::make_unique<Exchange>(executor, request.canceller, request.pool, socket_path,
                                          std::nullopt);
    status = co_await exchange->Connect(socket_path, request.connect_timeout);
    if (status.ok()) status = co_await exchange->Write(request);
    if (status.ok()) status = co_await exchange->ReadHeader();
  }
  if (!status.ok()) co_return status;
  co_return std::unique_ptr<UpstreamResponse>(std::move(exchange));
}

}  // namespace zest::http
