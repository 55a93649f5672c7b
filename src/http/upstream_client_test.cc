#include "http/upstream_client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/testing/temp_dir.h"

namespace zest::http {
namespace {

namespace net = boost::asio;
namespace beast_http = boost::beast::http;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Socket = net::local::stream_protocol::socket;

constexpr auto kTuple = net::as_tuple(net::use_awaitable);

// A fake engine on a UNIX socket in a temp dir: accepts one connection,
// reads the request, then runs a script that writes the raw response.
class UpstreamClientTest : public ::testing::Test {
 protected:
  using Script = std::function<net::awaitable<void>(Socket&)>;

  void ServeOnce(Script script) {
    std::filesystem::remove(socket_path_);  // left by an earlier ServeOnce
    acceptor_ = std::make_unique<net::local::stream_protocol::acceptor>(
        io_, net::local::stream_protocol::endpoint(socket_path_));
    net::co_spawn(io_, ServeConnection(std::move(script)), net::detached);
  }

  net::awaitable<void> ServeConnection(Script script) {
    Socket socket = co_await acceptor_->async_accept(net::use_awaitable);
    boost::beast::flat_buffer buffer;
    co_await beast_http::async_read(socket, buffer, received_, net::use_awaitable);
    co_await script(socket);
  }

  // Runs `task` to completion on the test's io_context (5 s at most); the
  // fake engine may still be waiting, so stop the loop when the task ends.
  template <class T>
  T Run(net::awaitable<T> task) {
    std::optional<T> result;
    std::exception_ptr error;
    bool done = false;
    io_.restart();
    net::co_spawn(io_, Store(std::move(task), &result), [&](const std::exception_ptr& e) {
      error = e;
      done = true;
      io_.stop();
    });
    io_.run_for(5s);
    if (!done) throw std::runtime_error("timed out");
    if (error) std::rethrow_exception(error);
    return std::move(*result);
  }
  template <class T>
  static net::awaitable<void> Store(net::awaitable<T> task, std::optional<T>* out) {
    out->emplace(co_await std::move(task));
  }

  static net::awaitable<void> Write(Socket& socket, std::string bytes) {
    co_await net::async_write(socket, net::buffer(bytes), net::use_awaitable);
  }

  zest::testing::TempDir tmp_{"http-test"};
  std::string dir_ = tmp_.path().string();
  std::string socket_path_ = dir_ + "/engine.sock";
  net::io_context io_;
  std::unique_ptr<net::local::stream_protocol::acceptor> acceptor_;
  beast_http::request<beast_http::string_body> received_;
};

constexpr std::string_view kStreamHeader =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

TEST_F(UpstreamClientTest, ReadsChunkedStreamPieceByPiece) {
  net::steady_timer gate(io_, Clock::time_point::max());
  ServeOnce([&](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, std::string(kStreamHeader) + "b\r\ndata: one\n\n\r\n");
    co_await gate.async_wait(kTuple);  // until the client has read "one"
    co_await Write(socket, "b\r\ndata: two\n\n\r\n0\r\n\r\n");
  });
  std::string body = Run([&]() -> net::awaitable<std::string> {
    UpstreamRequest request;
    request.method = "POST";
    request.target = "/v1/chat/completions";
    request.body = R"({"stream":true})";
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    if (!response.ok()) co_return "";
    EXPECT_EQ((*response)->status(), 200);
    EXPECT_EQ(FindHeader((*response)->headers(), "content-type"), "text/event-stream");
    std::string seen;
    while (seen != "data: one\n\n") {
      auto piece = co_await (*response)->ReadSome();
      if (!piece.ok() || !piece->has_value()) co_return "ended early: " + seen;
      seen += **piece;
    }
    // The second event is only written after we got the first: a client
    // that waited for the whole body would hang here.
    gate.cancel();
    for (;;) {
      auto piece = co_await (*response)->ReadSome();
      if (!piece.ok()) co_return piece.status().ToString();
      if (!piece->has_value()) co_return seen;
      seen += **piece;
    }
  }());
  EXPECT_EQ(body, "data: one\n\ndata: two\n\n");
  EXPECT_EQ(received_.method_string(), "POST");
  EXPECT_EQ(received_.target(), "/v1/chat/completions");
  EXPECT_EQ(received_[beast_http::field::host], "localhost");
  EXPECT_EQ(received_.body(), R"({"stream":true})");
}

TEST_F(UpstreamClientTest, ReadAllCollectsBodyAndEnforcesLimit) {
  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world");
  });
  auto body = Run([&]() -> net::awaitable<Result<std::string>> {
    UpstreamRequest request;
    request.headers.emplace_back("X-Request-Id", "42");
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    if (!response.ok()) co_return response.status();
    co_return co_await (*response)->ReadAll(1024);
  }());
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(*body, "hello world");
  EXPECT_EQ(received_["X-Request-Id"], "42");

  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world");
  });
  auto limited = Run([&]() -> net::awaitable<Result<std::string>> {
    UpstreamRequest request;
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    if (!response.ok()) co_return response.status();
    co_return co_await (*response)->ReadAll(5);
  }());
  EXPECT_EQ(limited.status().code(), ErrorCode::kTooLarge);
}

TEST_F(UpstreamClientTest, MissingSocketIsUnavailable) {
  auto status = Run([&]() -> net::awaitable<Status> {
    UpstreamRequest request;
    auto response =
        co_await SendUpstream(co_await net::this_coro::executor, dir_ + "/nobody.sock", request);
    co_return response.status();
  }());
  EXPECT_EQ(status.code(), ErrorCode::kUnavailable) << status.ToString();
}

// A socket at the engine's path served by another user's process (one that
// took the engine's place) gets no request. Needs root, to be that user.
TEST_F(UpstreamClientTest, RefusesASocketServedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to serve as another user";
  std::filesystem::permissions(dir_, std::filesystem::perms::all);
  // The child says it listens through a pipe: waiting on that holds however
  // slow a busy machine is (probing the socket instead filled its backlog
  // under load, and the request was refused before the check could run).
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path_.c_str());
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd, 16) != 0 || ::write(ready[1], "!", 1) != 1) {
      ::_exit(3);
    }
    const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    while (true) {  // answers every connection
      int client = ::accept(fd, nullptr, nullptr);
      if (client >= 0 && ::write(client, answer, sizeof answer - 1) < 0) ::_exit(4);
      ::close(client);
    }
  }
  ASSERT_GT(child, 0);
  ::close(ready[1]);
  char byte = 0;
  const bool started = ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  if (!started) {
    ::waitpid(child, nullptr, 0);
    FAIL() << "the other user's server did not start";
  }
  Status status = Run([&]() -> net::awaitable<Status> {
    UpstreamRequest request;
    request.method = "GET";
    request.target = "/health";
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    co_return response.status();
  }());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(status.code(), ErrorCode::kUnavailable) << status.ToString();
  EXPECT_NE(status.message().find("served by another user (uid 65534)"), std::string::npos)
      << status.message();
}

TEST_F(UpstreamClientTest, PeerClosingMidBodyIsUnavailable) {
  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..");
    socket.close();
  });
  auto body = Run([&]() -> net::awaitable<Result<std::string>> {
    // A named request: GCC 12 destroys a braced temporary argument twice
    // when the call sits inside co_await (GCC PR 99576).
    UpstreamRequest request;
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    if (!response.ok()) co_return response.status();
    co_return co_await (*response)->ReadAll(1024);
  }());
  EXPECT_EQ(body.status().code(), ErrorCode::kUnavailable) << body.status().ToString();
}

TEST_F(UpstreamClientTest, CancelEndsPendingReadPromptly) {
  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, std::string(kStreamHeader) + "5\r\nfirst\r\n");
    net::steady_timer never(socket.get_executor(), 1h);  // the engine goes quiet
    co_await never.async_wait(kTuple);
  });
  auto outcome = Run([&]() -> net::awaitable<std::pair<Status, Clock::duration>> {
    auto executor = co_await net::this_coro::executor;
    UpstreamRequest request;
    auto response = co_await SendUpstream(executor, socket_path_, request);
    if (!response.ok()) co_return std::pair(response.status(), Clock::duration{});
    auto first = co_await (*response)->ReadSome();
    EXPECT_TRUE(first.ok() && first->has_value() && **first == "first");
    UpstreamResponse* raw = response->get();
    net::steady_timer timer(executor, 50ms);
    timer.async_wait([raw](boost::system::error_code) { raw->Cancel(); });
    auto started = Clock::now();
    auto next = co_await raw->ReadSome();
    co_return std::pair(next.status(), Clock::now() - started);
  }());
  EXPECT_EQ(outcome.first.code(), ErrorCode::kCancelled) << outcome.first.ToString();
  EXPECT_LT(outcome.second, 1s);
}

TEST_F(UpstreamClientTest, CancellerAbortsWhileWaitingForHeaders) {
  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    net::steady_timer never(socket.get_executor(), 1h);  // a long non-streamed answer
    co_await never.async_wait(kTuple);
  });
  auto status = Run([&]() -> net::awaitable<Status> {
    auto executor = co_await net::this_coro::executor;
    UpstreamRequest request;
    request.canceller = std::make_shared<UpstreamCanceller>();
    net::steady_timer timer(executor, 50ms);
    timer.async_wait(
        [canceller = request.canceller](boost::system::error_code) { canceller->Cancel(); });
    auto response = co_await SendUpstream(executor, socket_path_, request);
    co_return response.status();
  }());
  EXPECT_EQ(status.code(), ErrorCode::kCancelled) << status.ToString();
}

// A fake engine that keeps connections alive: it answers every request
// on a connection with "connection N, request M" (both counted from 1),
// closing the connection after `close_after` requests on it (0: never).
class KeepAliveEngine {
 public:
  KeepAliveEngine(net::io_context& io, const std::string& path, int close_after)
      : acceptor_(io, net::local::stream_protocol::endpoint(path)), close_after_(close_after) {
    net::co_spawn(io, Accept(), net::detached);
  }
  int connections() const { return connections_; }
  // Closes the idle connections it holds (as llama-server does at its
  // keep-alive timeout).
  void CloseIdle() {
    for (auto& socket : open_) socket->close();
  }

 private:
  net::awaitable<void> Accept() {
    for (;;) {
      auto [ec, socket] = co_await acceptor_.async_accept(kTuple);
      if (ec) co_return;
      open_.push_back(std::make_shared<Socket>(std::move(socket)));
      net::co_spawn(acceptor_.get_executor(), Serve(open_.back(), ++connections_), net::detached);
    }
  }
  net::awaitable<void> Serve(std::shared_ptr<Socket> socket, int connection) {
    boost::beast::flat_buffer buffer;
    for (int request = 1;; ++request) {
      beast_http::request<beast_http::string_body> received;
      auto [ec, n] = co_await beast_http::async_read(*socket, buffer, received, kTuple);
      if (ec) co_return;
      const std::string body =
          "connection " + std::to_string(connection) + ", request " + std::to_string(request);
      const bool close = !received.keep_alive() || request == close_after_;
      const std::string answer =
          "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
          (close ? "Connection: close\r\n" : "") + "\r\n" + body;
      co_await net::async_write(*socket, net::buffer(answer), kTuple);
      if (close) {
        socket->close();
        co_return;
      }
    }
  }

  net::local::stream_protocol::acceptor acceptor_;
  const int close_after_;
  int connections_ = 0;
  std::vector<std::shared_ptr<Socket>> open_;
};

// One GET through `pool` (null: none), its body read whole.
net::awaitable<Result<std::string>> GetThrough(std::string path, UpstreamPool* pool) {
  UpstreamRequest request;
  request.target = "/health";
  request.pool = pool;
  auto response = co_await SendUpstream(co_await net::this_coro::executor, path, request);
  if (!response.ok()) co_return response.status();
  co_return co_await (*response)->ReadAll(1024);
}

TEST_F(UpstreamClientTest, APoolCarriesTheNextRequestOnTheSameConnection) {
  KeepAliveEngine engine(io_, socket_path_, 0);
  UpstreamPool pool;
  EXPECT_EQ(Run(GetThrough(socket_path_, &pool)).value(), "connection 1, request 1");
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_EQ(Run(GetThrough(socket_path_, &pool)).value(), "connection 1, request 2");
  EXPECT_EQ(engine.connections(), 1);
  // Without a pool, every request has a connection of its own, closed after.
  EXPECT_EQ(Run(GetThrough(socket_path_, nullptr)).value(), "connection 2, request 1");
  EXPECT_EQ(Run(GetThrough(socket_path_, nullptr)).value(), "connection 3, request 1");
}

TEST_F(UpstreamClientTest, AConnectionTheEngineClosedIsReplacedOnce) {
  KeepAliveEngine engine(io_, socket_path_, 0);
  UpstreamPool pool;
  ASSERT_TRUE(Run(GetThrough(socket_path_, &pool)).ok());
  engine.CloseIdle();  // at its keep-alive timeout, while zest holds it idle
  EXPECT_EQ(Run(GetThrough(socket_path_, &pool)).value(), "connection 2, request 1");
  // An answer that says "Connection: close" leaves nothing in the pool.
  KeepAliveEngine closing(io_, dir_ + "/closing.sock", 1);
  UpstreamPool other;
  EXPECT_EQ(Run(GetThrough(dir_ + "/closing.sock", &other)).value(), "connection 1, request 1");
  EXPECT_EQ(other.idle(), 0u);
  EXPECT_EQ(Run(GetThrough(dir_ + "/closing.sock", &other)).value(), "connection 2, request 1");
}

TEST_F(UpstreamClientTest, AResponseNotReadToItsEndIsNotKept) {
  KeepAliveEngine engine(io_, socket_path_, 0);
  UpstreamPool pool;
  Status status = Run([&]() -> net::awaitable<Status> {
    UpstreamRequest request;
    request.pool = &pool;
    auto response = co_await SendUpstream(co_await net::this_coro::executor, socket_path_, request);
    co_return response.status();  // dropped with its body unread
  }());
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_EQ(Run(GetThrough(socket_path_, &pool)).value(), "connection 2, request 1");
}

// llama-server closes its connection after a stream: a chunked response's
// connection is not kept, though it was read whole.
TEST_F(UpstreamClientTest, AStreamsConnectionIsNotKept) {
  ServeOnce([](Socket& socket) -> net::awaitable<void> {
    co_await Write(socket, std::string(kStreamHeader) + "b\r\ndata: one\n\n\r\n0\r\n\r\n");
  });
  UpstreamPool pool;
  auto body = Run(GetThrough(socket_path_, &pool));
  EXPECT_EQ(body.value(), "data: one\n\n");
  EXPECT_EQ(pool.idle(), 0u);
}

TEST(UpstreamPoolTest, KeepsAFewPerSocketForALittleWhile) {
  net::io_context io;
  UpstreamPool pool({.max_idle_per_socket = 2, .max_idle = std::chrono::milliseconds(50)});
  const auto pair = [&io] {
    Socket a(io);
    Socket b(io);
    net::local::connect_pair(a, b);
    return std::pair(std::move(a), std::move(b));
  };
  std::vector<Socket> peers;
  for (int i = 0; i < 3; ++i) {
    auto [mine, theirs] = pair();
    pool.Give("/a.sock", std::move(mine));
    peers.push_back(std::move(theirs));
  }
  EXPECT_EQ(pool.idle(), 2u);  // the oldest made room
  EXPECT_FALSE(pool.Take("/b.sock", io.get_executor()));
  net::io_context other;
  EXPECT_FALSE(pool.Take("/a.sock", other.get_executor()));  // another loop's
  EXPECT_TRUE(pool.Take("/a.sock", io.get_executor()));
  EXPECT_EQ(pool.idle(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  EXPECT_FALSE(pool.Take("/a.sock", io.get_executor()));  // expired
  EXPECT_EQ(pool.idle(), 0u);
  // One whose engine end closed while it was idle is not handed out.
  auto [mine, theirs] = pair();
  pool.Give("/a.sock", std::move(mine));
  theirs.close();
  EXPECT_FALSE(pool.Take("/a.sock", io.get_executor()));
}

}  // namespace
}  // namespace zest::http
